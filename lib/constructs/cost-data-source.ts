/**
 * The region's cost data source (docs/cost.md, "Data source"): OpenCost and the in-cluster Prometheus it
 * reads, both installed by Helm at pinned chart versions into the `opencost` namespace (created with its
 * NetworkPolicies by `cluster/k8s/`). cost-monitor reads `OPENCOST_URL` = {@link OPENCOST_URL}.
 *
 * Why an in-cluster Prometheus and not Amazon Managed Service for Prometheus: the platform deploys to
 * the aws, aws-cn and aws-us-gov partitions, and AMP has no workspaces in aws-cn and no managed collector
 * (AWS::APS::Scraper) in aws-us-gov (lib/feature-regions.ts), so AMP would make those regions
 * undeployable; OpenCost also needs no AWS permission at all this way (it reads AWS's public price list).
 *
 * Sources: OpenCost's Prometheus installation (https://www.opencost.io/docs/installation/prometheus: the
 * prometheus-community chart without alertmanager and pushgateway, plus the `opencost` scrape job) and
 * the OpenCost chart's values (https://github.com/opencost/opencost-helm-chart/blob/main/charts/opencost/values.yaml:
 * `opencost.prometheus.internal.*`, `opencost.exporter.image.*`, `opencost.ui.enabled`).
 */
import { Duration, Stack } from 'aws-cdk-lib';
import { HelmChart } from 'aws-cdk-lib/aws-eks-v2';
import type { ICluster } from 'aws-cdk-lib/aws-eks-v2';
import { Construct, type IDependable } from 'constructs';
import { thirdPartyImage } from '../images.js';

/** Namespace of OpenCost and its Prometheus (cluster/k8s/00-namespaces.yaml). */
export const COST_NAMESPACE = 'opencost';

/** OpenCost's API port (chart value `opencost.exporter.apiPort`, default 9003). */
export const OPENCOST_API_PORT = 9003;

/** The OpenCost Service the chart creates (release `opencost` → Service `opencost`): cost-monitor's OPENCOST_URL. */
export const OPENCOST_URL = `http://opencost.${COST_NAMESPACE}.svc:${OPENCOST_API_PORT}`;

/** Pinned charts: a deploy never picks up a new chart (or image) by itself. */
export const COST_CHARTS = {
  opencost: {
    repository: 'https://opencost.github.io/opencost-helm-chart',
    chart: 'opencost',
    version: '2.5.17',
  },
  prometheus: {
    repository: 'https://prometheus-community.github.io/helm-charts',
    chart: 'prometheus',
    version: '27.19.0',
  },
} as const;

/** Prometheus keeps this much history; cost-monitor reads the last completed window (an hour) only. */
const PROMETHEUS_RETENTION = '15d';

export interface CostDataSourceProps {
  readonly cluster: ICluster;
  /** `images.registry` when pre-built images are used: the third-party images come from its mirror. */
  readonly registry?: string;
  /** What must exist first: the namespace (and its policies) from `cluster/k8s/`. */
  readonly after: readonly IDependable[];
}

export class CostDataSource extends Construct {
  readonly prometheus: HelmChart;
  readonly opencost: HelmChart;

  constructor(scope: Construct, id: string, props: CostDataSourceProps) {
    super(scope, id);
    const region = Stack.of(this).region;
    const image = (name: Parameters<typeof thirdPartyImage>[0]) =>
      thirdPartyImage(name, props.registry, region);
    const prometheusImage = image('prometheus');
    const reloaderImage = image('prometheus-config-reloader');
    const opencostImage = image('opencost');

    this.prometheus = new HelmChart(this, 'Prometheus', {
      cluster: props.cluster,
      ...COST_CHARTS.prometheus,
      release: 'prometheus',
      namespace: COST_NAMESPACE,
      createNamespace: false,
      wait: true,
      timeout: Duration.minutes(10),
      values: prometheusValues(prometheusImage, reloaderImage),
    });

    this.opencost = new HelmChart(this, 'OpenCost', {
      cluster: props.cluster,
      ...COST_CHARTS.opencost,
      release: 'opencost',
      namespace: COST_NAMESPACE,
      createNamespace: false,
      wait: true,
      timeout: Duration.minutes(10),
      values: opencostValues(props.cluster.clusterName, opencostImage),
    });
    for (const dependency of props.after) {
      this.prometheus.node.addDependency(dependency);
      this.opencost.node.addDependency(dependency);
    }
    // OpenCost waits for its Prometheus: its readiness needs a reachable data source.
    this.opencost.node.addDependency(this.prometheus);
  }
}

type ImageRef = ReturnType<typeof thirdPartyImage>;

/** Values of the prometheus-community chart: the server only, with OpenCost's scrape job. */
function prometheusValues(prometheusImage: ImageRef, reloaderImage: ImageRef): Record<string, unknown> {
  return {
    // OpenCost's documented install leaves these two out; node-exporter and kube-state-metrics are not
    // read by the allocation API (OpenCost emits the kube-state metrics it needs itself:
    // chart value opencost.metrics.kubeStateMetrics.emitKsmV1Metrics, on by default).
    alertmanager: { enabled: false },
    'prometheus-pushgateway': { enabled: false },
    'prometheus-node-exporter': { enabled: false },
    'kube-state-metrics': { enabled: false },
    configmapReload: {
      prometheus: { image: { repository: reloaderImage.repository, tag: reloaderImage.tag } },
    },
    server: {
      image: { repository: prometheusImage.repository, tag: prometheusImage.tag },
      retention: PROMETHEUS_RETENTION,
      // EBS through EKS Auto Mode's block storage (the StorageClass in cluster/k8s/00-namespaces.yaml).
      persistentVolume: { enabled: true, size: '20Gi', storageClass: 'gco-ebs-gp3' },
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      securityContext: { runAsNonRoot: true, runAsUser: 65534, runAsGroup: 65534, fsGroup: 65534 },
    },
    // The `opencost` job of https://github.com/opencost/opencost/blob/develop/kubernetes/prometheus/extraScrapeConfigs.yaml.
    extraScrapeConfigs: [
      '- job_name: opencost',
      '  honor_labels: true',
      '  scrape_interval: 1m',
      '  scrape_timeout: 10s',
      '  metrics_path: /metrics',
      '  scheme: http',
      '  dns_sd_configs:',
      `    - names: ['opencost.${COST_NAMESPACE}']`,
      '      type: A',
      `      port: ${OPENCOST_API_PORT}`,
      '',
    ].join('\n'),
  };
}

/** Values of the OpenCost chart: the exporter reading the in-cluster Prometheus, no UI. */
function opencostValues(clusterName: string, opencostImage: ImageRef): Record<string, unknown> {
  return {
    // The chart would otherwise name the release's resources `opencost-opencost`.
    fullnameOverride: 'opencost',
    opencost: {
      exporter: {
        // Reports name the cluster (cost-monitor falls back to CLUSTER_NAME when it is missing).
        defaultClusterId: clusterName,
        // `fullImageName` replaces registry/repository:tag as a whole (the chart's opencost.fullImageName).
        image: { fullImageName: `${opencostImage.repository}:${opencostImage.tag}` },
        securityContext: {
          allowPrivilegeEscalation: false,
          capabilities: { drop: ['ALL'] },
          readOnlyRootFilesystem: true,
          runAsNonRoot: true,
          // USER 1001 of OpenCost's Dockerfile.
          runAsUser: 1001,
        },
      },
      // cost-monitor is the only client; the UI would be one more image and port.
      ui: { enabled: false },
      prometheus: {
        internal: {
          enabled: true,
          serviceName: 'prometheus-server',
          namespaceName: COST_NAMESPACE,
          port: 80,
        },
      },
    },
  };
}

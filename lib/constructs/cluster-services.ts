/**
 * The cluster services in one region: their images (built at deploy time as DockerImageAssets on
 * `cluster/Dockerfile` with the build argument SERVICE, build context = repository root; or pre-built,
 * config `images`, named `<registry>/<service>:<tag>` with no asset at all), their AWS permissions (one
 * EKS Pod Identity role per ServiceAccount, least privilege) and the `cluster/k8s/` manifests filled for
 * this region and applied file by file.
 */
import { Stack } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { DockerImageAsset, Platform } from 'aws-cdk-lib/aws-ecr-assets';
import { CfnPodIdentityAssociation, KubernetesManifest } from 'aws-cdk-lib/aws-eks-v2';
import type { ICluster } from 'aws-cdk-lib/aws-eks-v2';
import type { ITargetGroup } from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import { PolicyStatement, Role, ServicePrincipal, SessionTagsPrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays, type ILogGroup } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { CLUSTER_NAMESPACE, loadManifestTemplates, renderManifests } from '../cluster-manifests.js';
import type { ImagesConfig, RemovalPolicyName } from '../config.js';
import { CLUSTER_DOCKERFILE, IMAGE_PLATFORM, imageUri, registryInRegion } from '../images.js';
import { OPENCOST_URL } from './cost-data-source.js';
import { CLUSTER_SERVICES, type ClusterServiceName } from '../../contracts/routing.js';
import type { AlbServiceName } from '../../contracts/routing.js';
import { dataRemovalPolicy } from '../retention.js';
import { generationSuffix, TABLES, tableEnvironment, tableName } from '../../contracts/tables.js';
import type { TableDefinition } from '../../contracts/tables.js';
import { PROJECT_ROOT } from './platform-function.js';

export interface ClusterServicesProps {
  /** Project name: the central tables' names. */
  readonly projectName: string;
  /** Region of the global stack, where the central tables live. */
  readonly globalRegion: string;
  /** Every region of the deployment (DEPLOYMENT_REGIONS: the regions a queued job may target). */
  readonly deploymentRegions: readonly string[];
  /** The region's EKS cluster. */
  readonly cluster: ICluster;
  /** The ALB target group of each ALB-facing service (bound to its pods by a TargetGroupBinding). */
  readonly targetGroups: ReadonlyMap<AlbServiceName, ITargetGroup>;
  /** VPC address range: where the ALB's nodes connect from (NetworkPolicy). */
  readonly vpcCidr: string;
  /** The envelope signing-key secret (this region's replica). */
  readonly signingKeySecret: ISecret;
  /** `{"certificatePem","privateKeyPem","caCertificatePem"}` of the pods' HTTPS listeners. */
  readonly tlsKeyPairSecret: ISecret;
  /**
   * `{"certificatePem","privateKeyPem","caCertificatePem"}` of the model endpoints' TLS sidecars: the
   * inference reconciler copies it into the Kubernetes Secret they mount (docs/inference-reconciler.md).
   */
  readonly inferenceTlsKeyPairSecret: ISecret;
  /** PEM of the internal CA: cost-monitor's and the model servers' certificates chain to it. */
  readonly caCertificatePem: string;
  /** Where cost-monitor writes its reports. */
  readonly costReportsBucket: IBucket;
  /** Where cost-monitor claims scheduled report windows. */
  readonly costReportsTable: ITableV2;
  /**
   * Where the images come from: built from `cluster/Dockerfile` at deploy time (needs Docker or
   * CDK_DOCKER), or pre-built by `npm run images:build` and pulled by the nodes.
   */
  readonly images: ImagesConfig;
  /** `resource_generation`: the services' table names carry it (contracts/tables.ts tableName). @default 1 */
  readonly resourceGeneration?: number;
  /** What `cdk destroy` does to the platform-metrics log group (config removal_policy). */
  readonly removalPolicy: RemovalPolicyName;
}

/** The services that publish platform metrics (cluster/shared/emf-publisher.ts) from their loops. */
const METRICS_PUBLISHERS: readonly ClusterServiceName[] = ['manifest-processor', 'cost-monitor'];

export { CLUSTER_DOCKERFILE } from '../images.js';

/** DynamoDB actions each service issues, per table (read from the services' stores). */
const CENTRAL_TABLE_ACCESS: Readonly<Record<ClusterServiceName, readonly [TableDefinition, string[]][]>> = {
  'manifest-processor': [
    [TABLES.jobQueue, ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query']],
    [TABLES.jobTemplates, ['GetItem', 'PutItem', 'DeleteItem', 'Scan']],
    [TABLES.webhooks, ['GetItem', 'PutItem', 'DeleteItem', 'Query', 'Scan']],
    [TABLES.webhookDeliveries, ['GetItem', 'PutItem', 'DeleteItem', 'Query', 'Scan']],
    // The endpoint lifecycle API writes spec and generation; the region's reconciler its region's
    // status, and the last one removes a deleted record (docs/inference-endpoints.md).
    [TABLES.inferenceEndpoints, ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Scan']],
  ],
  'health-monitor': [],
  'inference-proxy': [[TABLES.inferenceEndpoints, ['GetItem']]],
  'cost-monitor': [],
};

export class ClusterServices extends Construct {
  /** The image URI of each service (an asset's, or the pre-built image's). */
  readonly imageUris: ReadonlyMap<ClusterServiceName, string>;
  /** The Docker image asset of each service; empty with pre-built images. */
  readonly imageAssets: ReadonlyMap<ClusterServiceName, DockerImageAsset>;
  /** The Pod Identity role of each service's ServiceAccount. */
  readonly roles: ReadonlyMap<ClusterServiceName, Role>;
  /** One applied manifest per `cluster/k8s/` file, in apply order. */
  readonly manifests: readonly KubernetesManifest[];
  /**
   * Where the pods' EMF documents go (METRICS_LOG_GROUP): CloudWatch extracts the GCO/Platform metrics
   * from it. One stream per pod replica; only the metrics publishers may write to it.
   */
  readonly metricsLogGroup: ILogGroup;

  constructor(scope: Construct, id: string, props: ClusterServicesProps) {
    super(scope, id);
    const stack = Stack.of(this);

    const images = serviceImages(this, props.images, stack.region);
    const { roles, associations } = this.addPodIdentityRoles(props);
    this.imageUris = images.uris;
    this.imageAssets = images.assets;
    this.roles = roles;
    this.metricsLogGroup = this.addMetricsLogGroup(props);
    grantServiceRoles(roles, props);
    const values = manifestValues(stack.region, props, images, this.metricsLogGroup);
    this.manifests = this.addManifests(props.cluster, values, associations);
  }

  /** One Pod Identity role per service, associated with its ServiceAccount, reading the TLS key pair. */
  private addPodIdentityRoles(props: ClusterServicesProps): {
    readonly roles: ReadonlyMap<ClusterServiceName, Role>;
    readonly associations: readonly CfnPodIdentityAssociation[];
  } {
    const { cluster } = props;
    const stack = Stack.of(this);
    const roles = new Map<ClusterServiceName, Role>();
    const associations: CfnPodIdentityAssociation[] = [];
    for (const service of CLUSTER_SERVICES) {
      const role = new Role(this, `${pascal(service)}Role`, {
        assumedBy: new SessionTagsPrincipal(new ServicePrincipal('pods.eks.amazonaws.com')),
        description: `EKS Pod Identity role of ${CLUSTER_NAMESPACE}/${service} in ${stack.region}`,
      });
      roles.set(service, role);
      associations.push(
        new CfnPodIdentityAssociation(this, `${pascal(service)}PodIdentity`, {
          clusterName: cluster.clusterName,
          namespace: CLUSTER_NAMESPACE,
          serviceAccount: service,
          roleArn: role.roleArn,
        }),
      );
      // Every pod serves HTTPS with the key pair.
      props.tlsKeyPairSecret.grantRead(role);
      for (const [table, actions] of CENTRAL_TABLE_ACCESS[service]) {
        role.addToPolicy(centralTableStatement(stack, props, table, actions));
      }
    }
    return { roles, associations };
  }

  /** The EMF log group of the pods' platform metrics; only the metrics publishers may write to it. */
  private addMetricsLogGroup(props: ClusterServicesProps): ILogGroup {
    const stack = Stack.of(this);
    const metricsLogGroup = new LogGroup(this, 'PlatformMetricsLogs', {
      // Retained under "retain": the name carries the generation so a redeploy does not collide with it.
      logGroupName: `/${props.projectName}/${stack.region}/platform-metrics${generationSuffix(props.resourceGeneration ?? 1)}`,
      // The metrics themselves live in CloudWatch (15 months); the documents only for a look back.
      retention: RetentionDays.THREE_MONTHS,
      removalPolicy: dataRemovalPolicy(props),
    });
    for (const service of METRICS_PUBLISHERS) {
      const role = this.roles.get(service);
      // The group's ARN ends in `:*`: its log streams, the resource of PutLogEvents and CreateLogStream.
      role?.addToPolicy(
        new PolicyStatement({
          sid: 'PublishPlatformMetrics',
          actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          resources: [metricsLogGroup.logGroupArn],
        }),
      );
    }

    return metricsLogGroup;
  }

  /** The rendered `cluster/k8s/` files, applied in order; Deployments after the Pod Identity associations. */
  private addManifests(
    cluster: ICluster,
    values: Record<string, string>,
    associations: readonly CfnPodIdentityAssociation[],
  ): KubernetesManifest[] {
    const manifests: KubernetesManifest[] = [];
    for (const file of renderManifests(loadManifestTemplates(), values)) {
      const manifest = new KubernetesManifest(this, `Manifest-${file.file.replace(/\.yaml$/, '')}`, {
        cluster,
        manifest: [...file.documents],
        // `kubectl apply`: idempotent, and adopts kube-system's amazon-vpc-cni ConfigMap if it exists.
        overwrite: true,
      });
      // Files are numbered in apply order (namespaces first, bindings after the Services they name).
      const previous = manifests[manifests.length - 1];
      if (previous) manifest.node.addDependency(previous);
      // Pods get AWS credentials only once their ServiceAccount's association exists.
      if (file.documents.some((doc) => doc.kind === 'Deployment')) {
        for (const association of associations) manifest.node.addDependency(association);
      }
      manifests.push(manifest);
    }
    return manifests;
  }
}

/** What each role may do beyond its tables: envelope verification, spot prices, cost reports. */
function grantServiceRoles(roles: ReadonlyMap<ClusterServiceName, Role>, props: ClusterServicesProps): void {
  const roleOf = (service: ClusterServiceName): Role => {
    const role = roles.get(service);
    if (!role) throw new Error(`No role for ${service}`);
    return role;
  };
  // Envelope verification: every service except cost-monitor (no authentication by design).
  for (const service of ['manifest-processor', 'health-monitor', 'inference-proxy'] as const) {
    props.signingKeySecret.grantRead(roleOf(service));
  }
  grantManifestProcessor(roleOf('manifest-processor'));
  // Only the inference reconciler reads the model endpoints' key pair (GetSecretValue on that one secret).
  props.inferenceTlsKeyPairSecret.grantRead(roleOf('manifest-processor'));
  grantCostMonitor(roleOf('cost-monitor'), props);
  for (const role of roles.values()) {
    NagSuppressions.addResourceSuppressions(
      role,
      [
        {
          id: 'AwsSolutions-IAM5',
          reason:
            'Secrets Manager ARNs end in a random suffix: the grant names the secret (signing-key replica, TLS ' +
            'key pair) and wildcards only the six-character suffix',
          appliesTo: [{ regex: '/^Resource::.*secret:.*-\\?\\?\\?\\?\\?\\?$/g' }],
        },
      ],
      true,
    );
  }
}

/** Spot prices for spot-gated queue dispatch. */
function grantManifestProcessor(manifestProcessor: Role): void {
  manifestProcessor.addToPolicy(
    new PolicyStatement({
      sid: 'SpotPricesForQueuedJobs',
      actions: ['ec2:DescribeSpotPriceHistory'],
      resources: ['*'],
    }),
  );
  NagSuppressions.addResourceSuppressions(
    manifestProcessor,
    [
      {
        id: 'AwsSolutions-IAM5',
        reason:
          'ec2:DescribeSpotPriceHistory supports no resource-level permissions (spot-gated queue dispatch); the ' +
          'job-queue and webhook-deliveries grants include their own indexes (<table>/index/*)',
        appliesTo: [
          'Resource::*',
          { regex: '/^Resource::arn:<AWS::Partition>:dynamodb:.*:table\\/.*\\/index\\/\\*$/g' },
        ],
      },
    ],
    true,
  );
}

/** The region's cost-report objects and its scheduled-window claims. */
function grantCostMonitor(costMonitor: Role, props: ClusterServicesProps): void {
  costMonitor.addToPolicy(
    new PolicyStatement({
      sid: 'CostReportObjects',
      actions: ['s3:GetObject', 's3:PutObject'],
      resources: [props.costReportsBucket.arnForObjects('*')],
    }),
  );
  costMonitor.addToPolicy(
    new PolicyStatement({
      sid: 'ListCostReports',
      actions: ['s3:ListBucket'],
      resources: [props.costReportsBucket.bucketArn],
    }),
  );
  costMonitor.addToPolicy(
    new PolicyStatement({
      sid: 'ScheduledWindowClaims',
      actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
      resources: [props.costReportsTable.tableArn],
    }),
  );
  NagSuppressions.addResourceSuppressions(
    costMonitor,
    [
      {
        id: 'AwsSolutions-IAM5',
        reason:
          'Report objects are written under time-based keys in the one cost-reports bucket of the region',
        appliesTo: [{ regex: '/^Resource::<.*CostReports.*\\.Arn>\\/\\*$/g' }],
      },
    ],
    true,
  );
}

/** The `${NAME}` values of the manifest templates. */
function manifestValues(
  region: string,
  props: ClusterServicesProps,
  images: ServiceImages,
  metricsLogGroup: ILogGroup,
): Record<string, string> {
  const { cluster } = props;
  const imageOf = (service: ClusterServiceName): string => {
    const uri = images.uris.get(service);
    if (!uri) throw new Error(`No image for ${service}`);
    return uri;
  };
  const targetGroupOf = (service: AlbServiceName): ITargetGroup => {
    const targetGroup = props.targetGroups.get(service);
    if (!targetGroup) throw new Error(`No ALB target group for ${service}`);
    return targetGroup;
  };
  const values: Record<string, string> = {
    REGION: region,
    GLOBAL_REGION: props.globalRegion,
    DEPLOYMENT_REGIONS: props.deploymentRegions.join(','),
    CLUSTER_NAME: cluster.clusterName,
    VPC_CIDR: props.vpcCidr,
    SIGNING_KEY_SECRET_ARN: props.signingKeySecret.secretArn,
    TLS_SECRET_ARN: props.tlsKeyPairSecret.secretArn,
    INFERENCE_TLS_KEY_PAIR_SECRET_ARN: props.inferenceTlsKeyPairSecret.secretArn,
    INTERNAL_CA_PEM: props.caCertificatePem,
    COST_REPORTS_BUCKET: props.costReportsBucket.bucketName,
    OPENCOST_URL,
    PROJECT_NAME: props.projectName,
    METRICS_LOG_GROUP: metricsLogGroup.logGroupName,
    // The policy trusts the project's own image repository besides the configured registries.
    PROJECT_REGISTRIES: images.projectRegistry,
    ...tableEnvironment(props.projectName, props.resourceGeneration),
  };
  for (const service of CLUSTER_SERVICES) {
    values[`IMAGE_${constantCase(service)}`] = imageOf(service);
  }
  for (const service of props.targetGroups.keys()) {
    values[`TARGET_GROUP_ARN_${constantCase(service)}`] = targetGroupOf(service).targetGroupArn;
  }

  return values;
}

interface ServiceImages {
  readonly uris: ReadonlyMap<ClusterServiceName, string>;
  readonly assets: ReadonlyMap<ClusterServiceName, DockerImageAsset>;
  /** Repository prefix of the project's images: the policy trusts it (PROJECT_REGISTRIES). */
  readonly projectRegistry: string;
}

/**
 * The four images. Pre-built: plain URIs, no asset, so neither synth nor `cdk deploy` needs Docker; the
 * nodes pull them with the Auto Mode node role (AmazonEC2ContainerRegistryReadOnly: any ECR repository
 * of the account; another account's repositories must allow this account in their repository policy,
 * docs/operations.md "Images without Docker").
 */
function serviceImages(scope: Construct, config: ImagesConfig, region: string): ServiceImages {
  const uris = new Map<ClusterServiceName, string>();
  const assets = new Map<ClusterServiceName, DockerImageAsset>();
  if (config.source === 'prebuilt') {
    const registry = registryInRegion(config.registry, region);
    for (const service of CLUSTER_SERVICES) uris.set(service, imageUri(registry, service, config.tag));
    return { uris, assets, projectRegistry: registry };
  }
  for (const service of CLUSTER_SERVICES) {
    const asset = new DockerImageAsset(scope, `${pascal(service)}Image`, {
      // The Dockerfile COPYs from the repository root; .dockerignore keeps the context (and the
      // synth-time fingerprint) to what it copies.
      directory: PROJECT_ROOT,
      file: CLUSTER_DOCKERFILE,
      buildArgs: { SERVICE: service },
      platform: Platform.custom(IMAGE_PLATFORM),
    });
    assets.set(service, asset);
    uris.set(service, asset.imageUri);
  }
  // Every asset lands in the one CDK container-asset repository of the account and region.
  const first = assets.get(CLUSTER_SERVICES[0]);
  if (!first) throw new Error('No image asset');
  return { uris, assets, projectRegistry: first.repository.repositoryUri };
}

function centralTableStatement(
  stack: Stack,
  props: ClusterServicesProps,
  table: TableDefinition,
  actions: readonly string[],
): PolicyStatement {
  // The central tables live in the global region; their names come from contracts/tables.ts.
  const arn = stack.formatArn({
    service: 'dynamodb',
    region: props.globalRegion,
    resource: 'table',
    resourceName: tableName(props.projectName, table, props.resourceGeneration),
  });
  return new PolicyStatement({
    actions: actions.map((action) => `dynamodb:${action}`),
    resources: table.indexes.length > 0 ? [arn, `${arn}/index/*`] : [arn],
  });
}

/** `manifest-processor` → `ManifestProcessor`. */
function pascal(name: string): string {
  return name
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

/** `manifest-processor` → `MANIFEST_PROCESSOR`. */
function constantCase(name: string): string {
  return name.toUpperCase().replace(/-/g, '_');
}

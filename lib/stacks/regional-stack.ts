/**
 * `<project>-<region>`, one per deployment region (docs/regional-stack.md):
 * - the VPC (private subnets with egress, flow logs, endpoints);
 * - the EKS Auto Mode cluster with the cluster services from `cluster/k8s/` (images, Pod Identity roles,
 *   TargetGroupBindings, RBAC, NetworkPolicies);
 * - the internal ALB (routes from contracts/routing.ts, certificate from the internal CA) and its DNS name in SSM;
 * - the accelerator endpoint group pointing at the ALB (accelerator regions only: a partition with Global
 *   Accelerator and a region it supports, lib/accelerator-regions.ts);
 * - the regional REST API with its in-VPC proxies, and its URL published for the aggregator;
 * - the cost data source: OpenCost and its in-cluster Prometheus (Helm, pinned charts);
 * - the regional cost-report table and bucket (`removal_policy`; the table's name carries
 *   `resource_generation`).
 * Deploy after the global stack: it reads the signing-key and internal-CA secrets' replicas by name, and
 * the accelerator listener ARN from the SSM parameter the global stack writes in this region (resolved by
 * CloudFormation on every deploy of this stack; no CDK cross-region reference).
 */
import { Aws, CfnOutput, RemovalPolicy } from 'aws-cdk-lib';
import { Port } from 'aws-cdk-lib/aws-ec2';
import type { CfnEndpointGroup } from 'aws-cdk-lib/aws-globalaccelerator';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import type { Construct } from 'constructs';
import { POD_HTTPS_PORT, serviceDnsNames } from '../cluster-manifests.js';
import { regionalApiDefinition } from '../../contracts/api-routes.js';
import type { ApiDefinition } from '../../contracts/api-routes.js';
import {
  aggregatorRoleName,
  albHostParameterName,
  internalCaSecretName,
  regionalApiName,
  regionalApiParameterName,
  signingKeySecretName,
} from '../names.js';
import { suppressEksClusterInternals } from '../nag-suppressions.js';
import { dataRemovalPolicy } from '../retention.js';
import { TABLES, tableName } from '../../contracts/tables.js';
import { INFERENCE_NAMESPACE } from '../../contracts/inference-endpoints.js';
import { ClusterServices } from '../constructs/cluster-services.js';
import { CostDataSource } from '../constructs/cost-data-source.js';
import { GpuNodePool } from '../constructs/gpu-node-pool.js';
import { InternalAlb } from '../constructs/internal-alb.js';
import { InternalCertificate } from '../constructs/internal-ca.js';
import { PlatformCluster } from '../constructs/platform-cluster.js';
import { RegionalApi } from '../constructs/regional-api.js';
import { RegionalNetwork } from '../constructs/regional-network.js';
import { RegionalProxies } from '../constructs/regional-proxies.js';
import { RegionalStorage } from '../constructs/regional-storage.js';
import { RegionalMonitoring } from '../monitoring/regional-monitoring.js';
import type { GlobalStack } from './global-stack.js';
import { PlatformStack } from './platform-stack.js';
import { addAcceleratorEndpointGroup } from './regional/accelerator-endpoint.js';
import type { PlatformStackProps } from './platform-stack.js';

/** Every model endpoint's Service host, ep-<name>[-canary].gco-inference.svc.cluster.local (contracts). */
const INFERENCE_TLS_DNS_NAME = `*.${INFERENCE_NAMESPACE}.svc.cluster.local`;
export interface RegionalStackProps extends PlatformStackProps {
  /** Region the stack deploys to: one entry of the config's regions. */
  readonly region: string;
  /** The deployment's global stack (same app): deployed first; its accelerator is checked here. */
  readonly globalStack: GlobalStack;
}

export class RegionalStack extends PlatformStack {
  readonly network: RegionalNetwork;
  readonly storage: RegionalStorage;
  readonly eks: PlatformCluster;
  /** Certificate of the ALB listener: `backend.<project>.<internal_domain>`. */
  readonly albCertificate: InternalCertificate;
  /** Certificate of the pods' own HTTPS listeners: the services' in-cluster names. */
  readonly serviceCertificate: InternalCertificate;
  /** The model endpoints' TLS sidecars (`*.gco-inference.svc.cluster.local`), synced into a Kubernetes Secret. */
  readonly inferenceCertificate: InternalCertificate;
  readonly alb: InternalAlb;
  readonly albHostParameter: StringParameter;
  readonly proxies: RegionalProxies;
  readonly api: RegionalApi;
  readonly services: ClusterServices;
  /** OpenCost and its Prometheus: cost-monitor's data source. */
  readonly costDataSource: CostDataSource;
  /** Only in an accelerator region (`config.acceleratorRegions`). */
  readonly acceleratorEndpointGroup?: CfnEndpointGroup;
  /** Only when `monitoring.enabled`. */
  readonly monitoring?: RegionalMonitoring;
  /** Only when `gpu_node_pool.enabled`. */
  readonly gpuNodePool?: GpuNodePool;

  constructor(scope: Construct, id: string, props: RegionalStackProps) {
    const { region, globalStack, ...platformProps } = props;
    const { config } = platformProps;
    super(scope, id, platformProps, {
      region,
      description: `${config.projectName} resources in ${region}: cluster, load balancer and regional API`,
    });

    this.network = new RegionalNetwork(this, 'Network', {
      configuredIds: config.eks.availabilityZoneIds[region],
      accelerated: config.acceleratorRegions.includes(region),
    });
    const removalPolicy = dataRemovalPolicy(config);
    this.storage = new RegionalStorage(this, 'Storage', {
      costReportsTableName: tableName(config.projectName, TABLES.costReports, config.resourceGeneration),
      tableSettings: config.tables,
      removalPolicy,
    });
    this.eks = this.addCluster(removalPolicy);
    const cluster = this.eks.cluster;

    const issuer = { projectName: config.projectName, caSecretName: internalCaSecretName(config) };
    this.albCertificate = new InternalCertificate(this, 'AlbCertificate', {
      ...issuer,
      metricName: 'alb',
      dnsNames: [config.backendHostname],
    });
    // A separate key pair for the pods: a compromised pod can impersonate a service, never the ALB name the
    // edge proxies trust.
    this.serviceCertificate = new InternalCertificate(this, 'ServiceCertificate', {
      ...issuer,
      metricName: 'services',
      dnsNames: serviceDnsNames(),
    });
    // A third key pair, for the model pods (user images): a compromised model can impersonate another
    // endpoint, never a platform service. One wildcard label covers ep-<name>[-canary] (RFC 6125 6.4.3).
    this.inferenceCertificate = new InternalCertificate(this, 'InferenceCertificate', {
      ...issuer,
      metricName: 'inference',
      dnsNames: [INFERENCE_TLS_DNS_NAME],
    });

    this.alb = this.addAlb();
    this.albHostParameter = new StringParameter(this, 'AlbHost', {
      parameterName: albHostParameterName(config),
      stringValue: this.alb.loadBalancer.loadBalancerDnsName,
      description: `DNS name of the ${config.projectName} internal ALB in ${region} (regional proxies)`,
    });

    // The signing-key secret is a replica of the global stack's secret: found by name in this region.
    const signingKeySecret = Secret.fromSecretNameV2(this, 'SigningKeyReplica', signingKeySecretName(config));
    const apiDefinition = regionalApiDefinition(config);
    this.proxies = this.addProxies(apiDefinition, signingKeySecret);
    this.api = this.addApi(apiDefinition, removalPolicy);
    this.services = this.addServices(signingKeySecret);
    // After cluster/k8s (the opencost namespace, its StorageClass and NetworkPolicies).
    this.costDataSource = new CostDataSource(this, 'CostDataSource', {
      cluster,
      ...(config.images.source === 'prebuilt' ? { registry: config.images.registry } : {}),
      after: this.services.manifests,
    });
    if (config.gpuNodePool.enabled) {
      this.gpuNodePool = new GpuNodePool(this, 'GpuNodePool', { cluster, config: config.gpuNodePool });
    }

    if (config.acceleratorRegions.includes(region)) {
      if (!globalStack.acceleratorListener) {
        throw new Error(
          `${globalStack.stackName} has no accelerator listener for ${region}'s endpoint group`,
        );
      }
      const albArn = this.alb.loadBalancer.loadBalancerArn;
      this.acceleratorEndpointGroup = addAcceleratorEndpointGroup(this, config, region, albArn);
    }

    this.addOutputs();

    // Last: the cluster's subtree is complete only once the ALB rule and the services are in it.
    suppressEksClusterInternals(cluster);

    // ---- monitoring (docs/operations.md): topic, alarms, composite, dashboard ---------------------
    if (config.monitoring.enabled) this.monitoring = this.addMonitoring();
  }

  private addCluster(removalPolicy: RemovalPolicy): PlatformCluster {
    const { config } = this;
    const eks = new PlatformCluster(this, 'Eks', {
      clusterName: config.regionalStackName(this.region),
      projectName: config.projectName,
      vpc: this.network.vpc,
      subnets: this.network.privateSubnets,
      adminPrincipalArns: config.eks.adminPrincipalArns,
    });
    // KMS keys are retained by default; under "destroy" the cluster's key is scheduled for deletion too.
    if (removalPolicy === RemovalPolicy.DESTROY) eks.secretsKey.applyRemovalPolicy(removalPolicy);
    return eks;
  }

  private addAlb(): InternalAlb {
    const { cluster } = this.eks;
    const alb = new InternalAlb(this, 'Alb', {
      vpc: this.network.vpc,
      subnets: this.network.privateSubnets,
      certificate: this.albCertificate.certificate,
      clusterName: cluster.clusterName,
      acceptAccelerator: this.config.acceleratorRegions.includes(this.region),
      accessLogs: this.storage.accessLogs,
    });
    // Auto Mode pods use the cluster security group: the ALB reaches their HTTPS port, nothing else.
    alb.loadBalancer.connections.allowTo(
      cluster.clusterSecurityGroup,
      Port.tcp(POD_HTTPS_PORT),
      'Internal ALB to the service pods (HTTPS)',
    );
    return alb;
  }

  private addProxies(definition: ApiDefinition, signingKeySecret: ISecret): RegionalProxies {
    return new RegionalProxies(this, 'Proxies', {
      projectName: this.config.projectName,
      backendHostname: this.config.backendHostname,
      api: definition,
      vpc: this.network.vpc,
      subnets: this.network.privateSubnets,
      albSecurityGroup: this.alb.securityGroup,
      endpointSecurityGroup: this.network.endpointSecurityGroup,
      albHostParameter: this.albHostParameter,
      signingKeySecret,
      internalCaPem: this.albCertificate.caCertificatePem,
    });
  }

  private addApi(definition: ApiDefinition, removalPolicy: RemovalPolicy): RegionalApi {
    const { config, region } = this;
    const api = new RegionalApi(this, 'RegionalApi', {
      definition,
      projectName: config.projectName,
      restApiName: regionalApiName(config, region),
      controlPlaneProxy: this.proxies.controlPlane,
      inferenceProxy: this.proxies.inference,
      aggregatorRoleName: aggregatorRoleName(config),
      openToAccount: config.regionalApiOpenToAccount(region),
      globalRegion: config.globalRegion,
      urlParameterName: regionalApiParameterName(config, region),
    });
    // RegionalApi keeps its stage's access logs by default; they follow removal_policy like the other data.
    api.api.accessLogs.applyRemovalPolicy(removalPolicy);
    return api;
  }

  private addServices(signingKeySecret: ISecret): ClusterServices {
    const { config } = this;
    return new ClusterServices(this, 'Services', {
      projectName: config.projectName,
      globalRegion: config.globalRegion,
      deploymentRegions: config.regions,
      cluster: this.eks.cluster,
      targetGroups: this.alb.targetGroups,
      vpcCidr: this.network.vpc.vpcCidrBlock,
      signingKeySecret,
      tlsKeyPairSecret: this.serviceCertificate.keyPairSecret,
      caCertificatePem: this.serviceCertificate.caCertificatePem,
      inferenceTlsKeyPairSecret: this.inferenceCertificate.keyPairSecret,
      costReportsBucket: this.storage.costReports,
      costReportsTable: this.storage.costReportsTable,
      images: config.images,
      resourceGeneration: config.resourceGeneration,
      removalPolicy: config.removalPolicy,
    });
  }

  private addOutputs(): void {
    new CfnOutput(this, 'RegionalApiUrl', { value: this.api.url, description: 'Regional API stage URL' });
    new CfnOutput(this, 'AlbDnsName', {
      value: this.alb.loadBalancer.loadBalancerDnsName,
      description: 'Internal ALB DNS name',
    });
    new CfnOutput(this, 'ClusterName', {
      value: this.eks.cluster.clusterName,
      description: 'EKS cluster name',
    });
    // Resolved by CloudFormation at deploy time, never a literal: the same template works in any partition.
    new CfnOutput(this, 'Partition', { value: Aws.PARTITION, description: 'Partition the stack runs in' });
    new CfnOutput(this, 'StageName', { value: this.config.stage, description: 'API Gateway stage name' });
  }

  private addMonitoring(): RegionalMonitoring {
    return new RegionalMonitoring(this, 'Monitoring', {
      config: this.config,
      api: this.api.api.api,
      controlPlaneProxy: this.proxies.controlPlane,
      inferenceProxy: this.proxies.inference,
      loadBalancer: this.alb.loadBalancer,
      targetGroups: this.alb.targetGroups,
      albCertificate: this.albCertificate.certificate,
    });
  }
}

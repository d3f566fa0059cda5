/**
 * `<project>-<region>`, one per deployment region (docs/regional-stack.md):
 * - the VPC (private subnets with egress, flow logs, endpoints);
 * - the EKS Auto Mode cluster with the cluster services from `cluster/k8s/` (images, Pod Identity roles,
 *   TargetGroupBindings, RBAC, NetworkPolicies);
 * - the internal ALB (routes from contracts/routing.ts, certificate from the internal CA) and its DNS name in SSM;
 * - the accelerator endpoint group pointing at the ALB (accelerator regions only: a partition with Global
 *   Accelerator and a region it supports, lib/accelerator-regions.ts);
 * - the regional REST API with its in-VPC proxies, and its URL published for the aggregator;
 * - the regional cost-report table and bucket (`removal_policy`; the table's name carries
 *   `resource_generation`).
 * Deploy after the global stack: it reads the signing-key and internal-CA secrets' replicas by name, and
 * the accelerator listener ARN from the SSM parameter the global stack writes in this region (resolved by
 * CloudFormation on every deploy of this stack; no CDK cross-region reference).
 */
import { Aws, CfnOutput, RemovalPolicy } from 'aws-cdk-lib';
import { Port } from 'aws-cdk-lib/aws-ec2';
import { CfnEndpointGroup } from 'aws-cdk-lib/aws-globalaccelerator';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import type { Construct } from 'constructs';
import { POD_HTTPS_PORT, serviceDnsNames } from '../cluster-manifests.js';
import { regionalApiDefinition } from '../../contracts/api-routes.js';
import {
  acceleratorListenerParameterName,
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
import { ClusterServices } from '../constructs/cluster-services.js';
import { InternalAlb, TARGET_HEALTH_CHECK } from '../constructs/internal-alb.js';
import { InternalCertificate } from '../constructs/internal-ca.js';
import { PlatformCluster } from '../constructs/platform-cluster.js';
import { RegionalApi } from '../constructs/regional-api.js';
import { RegionalNetwork } from '../constructs/regional-network.js';
import { RegionalProxies } from '../constructs/regional-proxies.js';
import { RegionalStorage } from '../constructs/regional-storage.js';
import { RegionalMonitoring } from '../monitoring/regional-monitoring.js';
import type { GlobalStack } from './global-stack.js';
import { PlatformStack } from './platform-stack.js';
import type { PlatformStackProps } from './platform-stack.js';

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
  readonly alb: InternalAlb;
  readonly albHostParameter: StringParameter;
  readonly proxies: RegionalProxies;
  readonly api: RegionalApi;
  readonly services: ClusterServices;
  /** Only in an accelerator region (`config.acceleratorRegions`). */
  readonly acceleratorEndpointGroup?: CfnEndpointGroup;
  /** Only when `monitoring.enabled`. */
  readonly monitoring?: RegionalMonitoring;

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
    const { vpc, privateSubnets: subnets } = this.network;
    const removalPolicy = dataRemovalPolicy(config);
    this.storage = new RegionalStorage(this, 'Storage', {
      costReportsTableName: tableName(config.projectName, TABLES.costReports, config.resourceGeneration),
      tableSettings: config.tables,
      removalPolicy,
    });
    this.eks = new PlatformCluster(this, 'Eks', {
      clusterName: config.regionalStackName(region),
      projectName: config.projectName,
      vpc,
      subnets,
      adminPrincipalArns: config.eks.adminPrincipalArns,
    });
    const cluster = this.eks.cluster;
    // KMS keys are retained by default; under "destroy" the cluster's key is scheduled for deletion too.
    if (removalPolicy === RemovalPolicy.DESTROY) this.eks.secretsKey.applyRemovalPolicy(removalPolicy);

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

    this.alb = new InternalAlb(this, 'Alb', {
      vpc,
      subnets,
      certificate: this.albCertificate.certificate,
      clusterName: cluster.clusterName,
      acceptAccelerator: config.acceleratorRegions.includes(region),
      accessLogs: this.storage.accessLogs,
    });
    // Auto Mode pods use the cluster security group: the ALB reaches their HTTPS port, nothing else.
    this.alb.loadBalancer.connections.allowTo(
      cluster.clusterSecurityGroup,
      Port.tcp(POD_HTTPS_PORT),
      'Internal ALB to the service pods (HTTPS)',
    );
    this.albHostParameter = new StringParameter(this, 'AlbHost', {
      parameterName: albHostParameterName(config),
      stringValue: this.alb.loadBalancer.loadBalancerDnsName,
      description: `DNS name of the ${config.projectName} internal ALB in ${region} (regional proxies)`,
    });

    // The signing-key secret is a replica of the global stack's secret: found by name in this region.
    const signingKeySecret = Secret.fromSecretNameV2(this, 'SigningKeyReplica', signingKeySecretName(config));
    const apiDefinition = regionalApiDefinition(config);
    this.proxies = new RegionalProxies(this, 'Proxies', {
      projectName: config.projectName,
      backendHostname: config.backendHostname,
      api: apiDefinition,
      vpc,
      subnets,
      albSecurityGroup: this.alb.securityGroup,
      endpointSecurityGroup: this.network.endpointSecurityGroup,
      albHostParameter: this.albHostParameter,
      signingKeySecret,
      internalCaPem: this.albCertificate.caCertificatePem,
    });
    this.api = new RegionalApi(this, 'RegionalApi', {
      definition: apiDefinition,
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
    this.api.api.accessLogs.applyRemovalPolicy(removalPolicy);

    this.services = new ClusterServices(this, 'Services', {
      projectName: config.projectName,
      globalRegion: config.globalRegion,
      deploymentRegions: config.regions,
      cluster,
      targetGroups: this.alb.targetGroups,
      vpcCidr: vpc.vpcCidrBlock,
      signingKeySecret,
      tlsKeyPairSecret: this.serviceCertificate.keyPairSecret,
      caCertificatePem: this.serviceCertificate.caCertificatePem,
      costReportsBucket: this.storage.costReports,
      costReportsTable: this.storage.costReportsTable,
      images: config.images,
      resourceGeneration: config.resourceGeneration,
      removalPolicy: config.removalPolicy,
    });

    if (config.acceleratorRegions.includes(region)) {
      if (!globalStack.acceleratorListener) {
        throw new Error(
          `${globalStack.stackName} has no accelerator listener for ${region}'s endpoint group`,
        );
      }
      // Weak reference: the global stack writes the listener ARN into this region's SSM parameter; the
      // template reads it as an SSM parameter type, resolved on every deploy of this stack.
      const listenerArn = StringParameter.valueForStringParameter(
        this,
        acceleratorListenerParameterName(config),
      );
      this.acceleratorEndpointGroup = new CfnEndpointGroup(this, 'AcceleratorEndpointGroup', {
        listenerArn,
        endpointGroupRegion: region,
        // An internal ALB endpoint always preserves client IPs (the ALB security group allows for it).
        endpointConfigurations: [
          {
            endpointId: this.alb.loadBalancer.loadBalancerArn,
            clientIpPreservationEnabled: true,
            weight: 128,
          },
        ],
        trafficDialPercentage: 100,
        // Mirrors the listener; for ALB endpoints the accelerator follows the ALB's own target health.
        healthCheckProtocol: 'HTTPS',
        healthCheckPort: 443,
        healthCheckPath: TARGET_HEALTH_CHECK.path,
        healthCheckIntervalSeconds: 10,
        thresholdCount: 3,
      });
    }

    new CfnOutput(this, 'RegionalApiUrl', { value: this.api.url, description: 'Regional API stage URL' });
    new CfnOutput(this, 'AlbDnsName', {
      value: this.alb.loadBalancer.loadBalancerDnsName,
      description: 'Internal ALB DNS name',
    });
    new CfnOutput(this, 'ClusterName', { value: cluster.clusterName, description: 'EKS cluster name' });
    // Resolved by CloudFormation at deploy time, never a literal: the same template works in any partition.
    new CfnOutput(this, 'Partition', { value: Aws.PARTITION, description: 'Partition the stack runs in' });
    new CfnOutput(this, 'StageName', { value: config.stage, description: 'API Gateway stage name' });

    // Last: the cluster's subtree is complete only once the ALB rule and the services are in it.
    suppressEksClusterInternals(cluster);

    // ---- monitoring (docs/operations.md): topic, alarms, composite, dashboard ---------------------
    if (config.monitoring.enabled) {
      this.monitoring = new RegionalMonitoring(this, 'Monitoring', {
        config,
        api: this.api.api.api,
        controlPlaneProxy: this.proxies.controlPlane,
        inferenceProxy: this.proxies.inference,
        loadBalancer: this.alb.loadBalancer,
        targetGroups: this.alb.targetGroups,
        albCertificate: this.albCertificate.certificate,
      });
    }
  }
}

/**
 * `<project>-<region>`, one per deployment region (issue 6, seeds 000 and 001, docs/regional-stack.md):
 * - the VPC (private subnets with egress, flow logs, endpoints);
 * - the EKS Auto Mode cluster with the cluster services from `cluster/k8s/` (images, Pod Identity roles,
 *   TargetGroupBindings, RBAC, NetworkPolicies);
 * - the internal ALB (routes from lib/routing.ts, certificate from the internal CA) and its DNS name in SSM;
 * - the accelerator endpoint group pointing at the ALB (partitions with Global Accelerator);
 * - the regional REST API with its in-VPC proxies, and its URL published for the aggregator;
 * - the regional cost-report table and bucket.
 * Deploy after the global stack: it reads the signing-key and internal-CA secrets' replicas by name, and
 * the accelerator listener ARN through a CDK cross-region reference.
 */
import { Aws, CfnOutput, Stack, Tags } from 'aws-cdk-lib';
import type { StackProps } from 'aws-cdk-lib';
import { Port } from 'aws-cdk-lib/aws-ec2';
import { CfnEndpointGroup } from 'aws-cdk-lib/aws-globalaccelerator';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import { POD_HTTPS_PORT, serviceDnsNames } from '../cluster-manifests.js';
import type { PlatformConfig } from '../config.js';
import { albHostParameterName, signingKeySecretName } from '../names.js';
import { ClusterServices } from '../constructs/cluster-services.js';
import { InternalAlb, TARGET_HEALTH_CHECK } from '../constructs/internal-alb.js';
import { InternalCertificate } from '../constructs/internal-ca.js';
import { PlatformCluster } from '../constructs/platform-cluster.js';
import { RegionalApi } from '../constructs/regional-api.js';
import { RegionalNetwork } from '../constructs/regional-network.js';
import { RegionalProxies } from '../constructs/regional-proxies.js';
import { RegionalStorage } from '../constructs/regional-storage.js';
import type { GlobalStack } from './global-stack.js';

export interface RegionalStackProps extends StackProps {
  readonly config: PlatformConfig;
  /** Region the stack deploys to: one entry of the config's regions. */
  readonly region: string;
  /** The deployment's global stack (same app): source of the cross-region references. */
  readonly globalStack: GlobalStack;
}

export class RegionalStack extends Stack {
  readonly config: PlatformConfig;
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
  /** Only where the partition has Global Accelerator. */
  readonly acceleratorEndpointGroup?: CfnEndpointGroup;

  constructor(scope: Construct, id: string, props: RegionalStackProps) {
    const { config, region, globalStack, ...stackProps } = props;
    super(scope, id, {
      description: `${config.projectName} resources in ${region}: cluster, load balancer and regional API`,
      ...stackProps,
      // Account stays environment-agnostic unless the CLI knows it, so synth needs no credentials.
      env: { account: process.env.CDK_DEFAULT_ACCOUNT, region },
    });
    this.config = config;
    Tags.of(this).add('Project', config.projectName);

    this.network = new RegionalNetwork(this, 'Network');
    const { vpc, privateSubnets: subnets } = this.network;
    this.storage = new RegionalStorage(this, 'Storage', { config });
    this.eks = new PlatformCluster(this, 'Eks', { config, vpc, subnets });
    const cluster = this.eks.cluster;

    this.albCertificate = new InternalCertificate(this, 'AlbCertificate', {
      config,
      dnsNames: [config.backendHostname],
    });
    // A separate key pair for the pods: a compromised pod can impersonate a service, never the ALB name the
    // edge proxies trust.
    this.serviceCertificate = new InternalCertificate(this, 'ServiceCertificate', {
      config,
      dnsNames: serviceDnsNames(),
    });

    this.alb = new InternalAlb(this, 'Alb', {
      vpc,
      subnets,
      certificate: this.albCertificate.certificate,
      clusterName: cluster.clusterName,
      acceptAccelerator: config.partition.hasGlobalAccelerator,
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
    this.proxies = new RegionalProxies(this, 'Proxies', {
      config,
      vpc,
      subnets,
      albSecurityGroup: this.alb.securityGroup,
      endpointSecurityGroup: this.network.endpointSecurityGroup,
      albHostParameter: this.albHostParameter,
      signingKeySecret,
      internalCaPem: this.albCertificate.caCertificatePem,
    });
    this.api = new RegionalApi(this, 'RegionalApi', {
      config,
      controlPlaneProxy: this.proxies.controlPlane,
      inferenceProxy: this.proxies.inference,
    });

    this.services = new ClusterServices(this, 'Services', {
      config,
      cluster,
      targetGroups: this.alb.targetGroups,
      vpcCidr: vpc.vpcCidrBlock,
      signingKeySecret,
      tlsKeyPairSecret: this.serviceCertificate.keyPairSecret,
      caCertificatePem: this.serviceCertificate.caCertificatePem,
      costReportsBucket: this.storage.costReports,
      costReportsTable: this.storage.costReportsTable,
    });

    if (config.partition.hasGlobalAccelerator) {
      const listener = globalStack.acceleratorListener;
      if (!listener) {
        throw new Error(
          `${globalStack.stackName} has no accelerator listener in the ${config.partition.partition} partition`,
        );
      }
      this.acceleratorEndpointGroup = new CfnEndpointGroup(this, 'AcceleratorEndpointGroup', {
        listenerArn: listener.listenerArn,
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

    suppressCdkInternals(this);
  }
}

/** cdk-nag findings on constructs the CDK itself generates (their settings are not ours to choose). */
function suppressCdkInternals(stack: RegionalStack): void {
  const cluster = stack.eks.cluster;
  const managed = (name: string): string => `Policy::arn:<AWS::Partition>:iam::aws:policy/${name}`;
  NagSuppressions.addResourceSuppressions(
    cluster,
    [
      {
        id: 'AwsSolutions-IAM4',
        reason:
          'EKS Auto Mode requires these AWS managed policies on the cluster role (compute, block storage, load ' +
          'balancing, networking) and on the node role (worker node, ECR pull); AWS updates them with the service',
        appliesTo: [
          managed('AmazonEKSClusterPolicy'),
          managed('AmazonEKSComputePolicy'),
          managed('AmazonEKSBlockStoragePolicy'),
          managed('AmazonEKSLoadBalancingPolicy'),
          managed('AmazonEKSNetworkingPolicy'),
          managed('AmazonEKSWorkerNodePolicy'),
          managed('AmazonEC2ContainerRegistryReadOnly'),
        ],
      },
    ],
    true,
  );
  const kubectlProvider = cluster.node.tryFindChild('KubectlProvider');
  if (kubectlProvider) {
    NagSuppressions.addResourceSuppressions(
      kubectlProvider,
      [
        {
          id: 'AwsSolutions-IAM4',
          reason:
            'CDK kubectl provider (aws-eks-v2): its handler and provider-framework functions use the AWS managed ' +
            'Lambda execution, VPC access and ECR read policies the CDK attaches',
          appliesTo: [
            managed('service-role/AWSLambdaBasicExecutionRole'),
            managed('service-role/AWSLambdaVPCAccessExecutionRole'),
            managed('AmazonEC2ContainerRegistryReadOnly'),
            { regex: '/^Policy::.*AmazonElasticContainerRegistryPublicReadOnly.*$/g' },
          ],
        },
        {
          id: 'AwsSolutions-IAM5',
          reason:
            'CDK provider framework: may invoke any version of its one kubectl handler function (<arn>:*)',
          appliesTo: [{ regex: '/^Resource::<.*KubectlProviderHandler.*\\.Arn>:\\*$/g' }],
        },
        {
          id: 'AwsSolutions-L1',
          reason:
            'CDK kubectl handler: the CDK pins the Python runtime its bundled kubectl/helm/awscli layers need',
        },
        {
          id: 'Serverless-LambdaLatestVersion',
          reason:
            'CDK kubectl handler: the CDK pins the Python runtime its bundled kubectl/helm/awscli layers need',
        },
        {
          id: 'Serverless-LambdaDLQ',
          reason:
            'Invoked synchronously by CloudFormation through the provider framework, which reports every failure',
        },
        {
          id: 'Serverless-LambdaDefaultMemorySize',
          reason: 'CDK provider framework function (CDK-managed sizing)',
        },
      ],
      true,
    );
  }
  // The singleton function behind every AwsCustomResource of the stack (the regional API URL publication).
  const awsCustomResourceFunction = stack.node.tryFindChild(AWS_CUSTOM_RESOURCE_SINGLETON_ID);
  if (awsCustomResourceFunction) {
    NagSuppressions.addResourceSuppressions(
      awsCustomResourceFunction,
      [
        {
          id: 'AwsSolutions-IAM4',
          reason:
            'CDK AwsCustomResource function: AWSLambdaBasicExecutionRole for its own logs (CDK-managed)',
          appliesTo: [managed('service-role/AWSLambdaBasicExecutionRole')],
        },
        {
          id: 'Serverless-LambdaDLQ',
          reason: 'Invoked synchronously by CloudFormation, which sees every failure',
        },
        {
          id: 'Serverless-LambdaDefaultMemorySize',
          reason: 'CDK AwsCustomResource function (CDK-managed sizing)',
        },
      ],
      true,
    );
  }
}

/** Construct id of the CDK's AwsCustomResource singleton function (aws-cdk-lib/custom-resources). */
const AWS_CUSTOM_RESOURCE_SINGLETON_ID = 'AWS679f53fac002430cb0da5b7982bd2287';

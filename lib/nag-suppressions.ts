/**
 * cdk-nag suppressions for resources the CDK itself generates: custom-resource provider frameworks, the
 * AwsCustomResource singleton, the EKS cluster's roles and kubectl provider, API Gateway's account-level
 * logging role. Their runtimes, managed policies and sizing are the CDK's to choose, not ours, so each
 * finding is suppressed here with the reason it cannot be fixed in this code base. Suppressions for the
 * platform's own resources sit beside those resources; PlatformFunction applies its functions' own.
 * docs/global-stack.md and docs/regional-stack.md ("cdk-nag") list them.
 */
import type { Stack } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import type { Cluster } from 'aws-cdk-lib/aws-eks-v2';
import type { Provider } from 'aws-cdk-lib/custom-resources';
import { NagSuppressions } from 'cdk-nag';

const managedPolicy = (name: string): string => `Policy::arn:<AWS::Partition>:iam::aws:policy/${name}`;

/** Construct id of the CDK's AwsCustomResource singleton function (aws-cdk-lib/custom-resources). */
const AWS_CUSTOM_RESOURCE_SINGLETON_ID = 'AWS679f53fac002430cb0da5b7982bd2287';

/** The framework function (and its role) of a custom-resource Provider. */
export function suppressProviderFramework(provider: Provider): void {
  NagSuppressions.addResourceSuppressions(
    provider,
    [
      {
        id: 'AwsSolutions-IAM4',
        reason: 'CDK Provider framework function: AWSLambdaBasicExecutionRole for its own logs (CDK-managed)',
        appliesTo: [managedPolicy('service-role/AWSLambdaBasicExecutionRole')],
      },
      {
        id: 'AwsSolutions-IAM5',
        reason:
          'CDK Provider framework function may invoke any version of its one onEvent function (<arn>:*)',
      },
      {
        id: 'Serverless-LambdaDefaultMemorySize',
        reason: 'CDK Provider framework function (CDK-managed sizing)',
      },
      {
        id: 'Serverless-LambdaDLQ',
        reason:
          'CDK Provider framework function: CloudFormation invokes it synchronously and sees every failure',
      },
    ],
    true,
  );
}

/**
 * The function behind every AwsCustomResource of `stack`. Call once the stack's first AwsCustomResource
 * exists (the singleton is created with it).
 */
export function suppressAwsCustomResourceFunction(stack: Stack): void {
  const singleton = stack.node.tryFindChild(AWS_CUSTOM_RESOURCE_SINGLETON_ID);
  if (!singleton) return;
  NagSuppressions.addResourceSuppressions(
    singleton,
    [
      {
        id: 'AwsSolutions-IAM4',
        reason: 'CDK AwsCustomResource function: AWSLambdaBasicExecutionRole for its own logs (CDK-managed)',
        appliesTo: [managedPolicy('service-role/AWSLambdaBasicExecutionRole')],
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

/** API Gateway's account-level CloudWatch logging role, created by a RestApi with `cloudWatchRole`. */
export function suppressRestApiCloudWatchRole(api: RestApi): void {
  const role = api.node.tryFindChild('CloudWatchRole');
  if (!role) return;
  NagSuppressions.addResourceSuppressions(
    role,
    [
      {
        id: 'AwsSolutions-IAM4',
        reason:
          "AmazonAPIGatewayPushToCloudWatchLogs is the AWS-documented policy of API Gateway's account-level logging role",
        appliesTo: [managedPolicy('service-role/AmazonAPIGatewayPushToCloudWatchLogs')],
      },
    ],
    true,
  );
}

/**
 * The EKS Auto Mode cluster's CDK-made roles and its kubectl provider. Call after everything that adds
 * to the cluster's subtree (security group rules, access entries) exists: the suppressions reach the
 * resources present at the call.
 */
export function suppressEksClusterInternals(cluster: Cluster): void {
  NagSuppressions.addResourceSuppressions(
    cluster,
    [
      {
        id: 'AwsSolutions-IAM4',
        reason:
          'EKS Auto Mode requires these AWS managed policies on the cluster role (compute, block storage, load ' +
          'balancing, networking) and on the node role (worker node, ECR pull); AWS updates them with the service',
        appliesTo: [
          managedPolicy('AmazonEKSClusterPolicy'),
          managedPolicy('AmazonEKSComputePolicy'),
          managedPolicy('AmazonEKSBlockStoragePolicy'),
          managedPolicy('AmazonEKSLoadBalancingPolicy'),
          managedPolicy('AmazonEKSNetworkingPolicy'),
          managedPolicy('AmazonEKSWorkerNodePolicy'),
          managedPolicy('AmazonEC2ContainerRegistryReadOnly'),
        ],
      },
    ],
    true,
  );
  const kubectlProvider = cluster.node.tryFindChild('KubectlProvider');
  if (!kubectlProvider) return;
  NagSuppressions.addResourceSuppressions(
    kubectlProvider,
    [
      {
        id: 'AwsSolutions-IAM4',
        reason:
          'CDK kubectl provider (aws-eks-v2): its handler and provider-framework functions use the AWS managed ' +
          'Lambda execution, VPC access and ECR read policies the CDK attaches',
        appliesTo: [
          managedPolicy('service-role/AWSLambdaBasicExecutionRole'),
          managedPolicy('service-role/AWSLambdaVPCAccessExecutionRole'),
          managedPolicy('AmazonEC2ContainerRegistryReadOnly'),
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

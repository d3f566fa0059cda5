/**
 * The region's EKS cluster (aws-eks-v2): Kubernetes 1.34 in EKS Auto Mode, a private API endpoint, all
 * control-plane log types, Kubernetes secrets encrypted with a customer-managed KMS key, and the kubectl
 * provider that applies `cluster/k8s/` (lib/constructs/cluster-services.ts).
 *
 * Why Auto Mode (docs/regional-stack.md): EKS runs the nodes, the VPC CNI with NetworkPolicy enforcement,
 * the EKS Pod Identity agent and the load-balancing capability whose TargetGroupBinding
 * (`eks.amazonaws.com/v1`) registers the pods in the CDK-made ALB target groups — no AWS Load Balancer
 * Controller, node groups or add-on versions to operate.
 */
import { createHash } from 'node:crypto';
import { KubectlV34Layer } from '@aws-cdk/lambda-layer-kubectl-v34';
import { Stack, Validations } from 'aws-cdk-lib';
import type { IVpc, SubnetSelection } from 'aws-cdk-lib/aws-ec2';
import {
  Addon,
  Cluster,
  ClusterLoggingTypes,
  DefaultCapacityType,
  EndpointAccess,
  KubernetesVersion,
} from 'aws-cdk-lib/aws-eks-v2';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';

export interface PlatformClusterProps {
  /** `<project>-<region>`: what operators pass to `aws eks update-kubeconfig --name`. */
  readonly clusterName: string;
  /** Project name: the secrets key's description. */
  readonly projectName: string;
  /** The region's VPC. */
  readonly vpc: IVpc;
  /** Subnets of the control-plane ENIs, the nodes and the kubectl provider (private, with egress). */
  readonly subnets: SubnetSelection;
  /** IAM roles/users given cluster admin (`eks.admin_principal_arns`). */
  readonly adminPrincipalArns: readonly string[];
}

export class PlatformCluster extends Construct {
  /** The EKS cluster. */
  readonly cluster: Cluster;
  /** KMS key that envelope-encrypts the cluster's Kubernetes secrets. */
  readonly secretsKey: Key;

  constructor(scope: Construct, id: string, props: PlatformClusterProps) {
    super(scope, id);
    const region = Stack.of(this).region;
    this.secretsKey = new Key(this, 'SecretsKey', {
      description: `${props.projectName} EKS secrets encryption (${region})`,
      enableKeyRotation: true,
    });
    this.cluster = new Cluster(this, 'Cluster', {
      clusterName: props.clusterName,
      version: KubernetesVersion.V1_34,
      vpc: props.vpc,
      vpcSubnets: [props.subnets],
      defaultCapacityType: DefaultCapacityType.AUTOMODE,
      compute: { nodePools: ['system', 'general-purpose'] },
      // Nothing outside the VPC talks to the API server; the kubectl provider runs in the private subnets.
      endpointAccess: EndpointAccess.PRIVATE,
      secretsEncryptionKey: this.secretsKey,
      clusterLogging: [
        ClusterLoggingTypes.API,
        ClusterLoggingTypes.AUDIT,
        ClusterLoggingTypes.AUTHENTICATOR,
        ClusterLoggingTypes.CONTROLLER_MANAGER,
        ClusterLoggingTypes.SCHEDULER,
      ],
      kubectlProviderOptions: { kubectlLayer: new KubectlV34Layer(this, 'KubectlLayer') },
    });
    Validations.of(this.cluster).acknowledge({
      id: 'CloudFormation-Validate::W9009',
      reason:
        "aws-eks-v2 renders EncryptionConfig Resources: ['secrets'] (the only value EKS accepts); the " +
        'cluster construct offers no way to leave it out',
    });
    // Access entries (authentication mode API, as aws-eks-v2 sets it): besides the kubectl handler's role
    // (added by the construct) and the CloudFormation role that created the cluster, only these principals
    // are cluster admins; nobody needs aws-auth.
    // Ids from the ARN, not the list position: removing one admin must not move another to a new logical
    // id, which CloudFormation would create before deleting the old entry of the same principal (a clash).
    for (const principal of props.adminPrincipalArns) {
      const digest = createHash('sha256').update(principal).digest('hex').slice(0, 12);
      this.cluster.grantClusterAdmin(`Admin${digest}`, principal);
    }
    // metrics.k8s.io for health-monitor's utilization and the job metrics route; Auto Mode does not ship it.
    new Addon(this, 'MetricsServer', { cluster: this.cluster, addonName: 'metrics-server' });
  }
}

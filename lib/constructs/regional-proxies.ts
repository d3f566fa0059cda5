/**
 * The regional API's proxy functions (docs/edge-lambdas.md, MODE=regional): in the VPC's private subnets,
 * they read the ALB host from SSM, verify it is this account's internal ALB (ELBv2), sign the HMAC
 * envelope with the signing-key replica and forward to the ALB over TLS verified against the internal CA.
 * Their security group opens connections only to the ALB and the VPC interface endpoints.
 */
import { Port, SecurityGroup } from 'aws-cdk-lib/aws-ec2';
import type { ISecurityGroup, IVpc, SubnetSelection } from 'aws-cdk-lib/aws-ec2';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IStringParameter } from 'aws-cdk-lib/aws-ssm';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { proxyEnvironment } from '../../contracts/env/proxy.js';
import type { ApiDefinition } from '../../contracts/api-routes.js';
import { PlatformFunction, routeFunctionTimeout } from './platform-function.js';

export interface RegionalProxiesProps {
  /** Project name: the functions' descriptions. */
  readonly projectName: string;
  /** TLS server name the proxies expect on the ALB's certificate (`backend.<project>.<internal_domain>`). */
  readonly backendHostname: string;
  /** The regional API the proxies serve: each function's timeout follows its routes. */
  readonly api: ApiDefinition;
  /** The region's VPC. */
  readonly vpc: IVpc;
  /** Private subnets with egress, where the functions' network interfaces go. */
  readonly subnets: SubnetSelection;
  /** Security group of the internal ALB (the only backend). */
  readonly albSecurityGroup: ISecurityGroup;
  /** Security group of the interface endpoints (SSM, ELBv2, Secrets Manager). */
  readonly endpointSecurityGroup: ISecurityGroup;
  /** SSM String parameter holding the ALB's DNS name. */
  readonly albHostParameter: IStringParameter;
  /** The signing-key secret's replica in this region. */
  readonly signingKeySecret: ISecret;
  /** PEM of the internal CA that issued the ALB's certificate. */
  readonly internalCaPem: string;
}

export class RegionalProxies extends Construct {
  readonly controlPlane: PlatformFunction;
  readonly inference: PlatformFunction;
  readonly securityGroup: SecurityGroup;

  constructor(scope: Construct, id: string, props: RegionalProxiesProps) {
    super(scope, id);
    this.securityGroup = this.addSecurityGroup(props);

    const environment = proxyEnvironment({
      mode: 'regional',
      backendHostname: props.backendHostname,
      albHostParameter: props.albHostParameter.parameterName,
      caPem: props.internalCaPem,
      signingKeySecretArn: props.signingKeySecret.secretArn,
    });
    const network = { vpc: props.vpc, subnets: props.subnets, securityGroups: [this.securityGroup] };
    this.controlPlane = new PlatformFunction(this, 'ControlPlaneProxy', {
      entryName: 'control-plane-proxy',
      description: `Regional control-plane proxy (${props.projectName}): /api/v1/{proxy+} to the internal ALB`,
      timeout: routeFunctionTimeout(props.api, 'control-plane-proxy'),
      invokedBy: 'api-gateway',
      environment,
      network,
    });
    this.inference = new PlatformFunction(this, 'InferenceStreamProxy', {
      entryName: 'inference-stream-proxy',
      description: `Regional inference stream proxy (${props.projectName}): /inference/{proxy+} to the internal ALB`,
      timeout: routeFunctionTimeout(props.api, 'inference-stream-proxy'),
      invokedBy: 'api-gateway',
      environment,
      network,
    });

    for (const fn of [this.controlPlane, this.inference]) grantProxyReads(fn, props);
  }

  /** HTTPS to the internal ALB and the VPC endpoints, nothing else. */
  private addSecurityGroup(props: RegionalProxiesProps): SecurityGroup {
    const securityGroup = new SecurityGroup(this, 'SecurityGroup', {
      vpc: props.vpc,
      description: 'Regional proxy functions: HTTPS to the internal ALB and the VPC endpoints only',
      allowAllOutbound: false,
    });
    securityGroup.connections.allowTo(props.albSecurityGroup, Port.tcp(443), 'HTTPS to the internal ALB');
    securityGroup.connections.allowTo(
      props.endpointSecurityGroup,
      Port.tcp(443),
      'HTTPS to the VPC endpoints (SSM, ELBv2, Secrets Manager)',
    );

    return securityGroup;
  }
}

/** The ALB host parameter, the ALB check and the signing-key replica. */
function grantProxyReads(fn: PlatformFunction, props: RegionalProxiesProps): void {
  fn.addToRolePolicy(
    new PolicyStatement({
      sid: 'ReadAlbHost',
      actions: ['ssm:GetParameter'],
      resources: [props.albHostParameter.parameterArn],
    }),
  );
  fn.addToRolePolicy(
    new PolicyStatement({
      sid: 'VerifyAlbIsInternalAndOwned',
      actions: ['elasticloadbalancing:DescribeLoadBalancers'],
      resources: ['*'],
    }),
  );
  fn.addToRolePolicy(
    new PolicyStatement({
      sid: 'ReadSigningKey',
      actions: ['secretsmanager:GetSecretValue'],
      // The replica's ARN ends in the primary's random suffix, which no stack of this region can know.
      resources: [`${props.signingKeySecret.secretArn}-??????`],
    }),
  );
  NagSuppressions.addResourceSuppressions(
    fn.role!,
    [
      {
        id: 'AwsSolutions-IAM5',
        reason:
          'elasticloadbalancing:DescribeLoadBalancers has no resource-level permissions (the proxy pages ' +
          'through it to verify the ALB from SSM is internal and account-owned); the signing-key replica is ' +
          'named, only its random six-character suffix is a wildcard',
        appliesTo: ['Resource::*', { regex: '/^Resource::.*secret:.*-\\?\\?\\?\\?\\?\\?$/g' }],
      },
      // Restates PlatformFunction's own VPC-policy suppression in this construct's earlier wording. It is
      // part of the template metadata, so dropping it waits for a change that may update the snapshots.
      {
        id: 'AwsSolutions-IAM4',
        reason:
          'AWSLambdaVPCAccessExecutionRole: the ENI actions Lambda needs to attach to the VPC have no ' +
          'resource-level scoping',
        appliesTo: [
          'Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole',
        ],
      },
    ],
    true,
  );
}

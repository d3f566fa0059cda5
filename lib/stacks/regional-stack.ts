// One stack per deployment region (VPC, EKS cluster, load balancer, regional API: later issues).
import { Aws, CfnOutput, Stack, Tags } from 'aws-cdk-lib';
import type { StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { PlatformConfig } from '../config.js';
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

  constructor(scope: Construct, id: string, props: RegionalStackProps) {
    const { config, region, globalStack: _globalStack, ...stackProps } = props;
    super(scope, id, {
      description: `${config.projectName} resources in ${region}: cluster, load balancer and regional API`,
      ...stackProps,
      // Account stays environment-agnostic unless the CLI knows it, so synth needs no credentials.
      env: { account: process.env.CDK_DEFAULT_ACCOUNT, region },
    });
    this.config = config;
    Tags.of(this).add('Project', config.projectName);

    // Resolved by CloudFormation at deploy time, never a literal: the same template works in any partition.
    new CfnOutput(this, 'Partition', { value: Aws.PARTITION, description: 'Partition the stack runs in' });
    new CfnOutput(this, 'StageName', { value: config.stage, description: 'API Gateway stage name' });
  }
}

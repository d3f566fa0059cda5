// The deployment's single global stack (global API, accelerator, central tables: later issues).
import { Aws, CfnOutput, Stack, Tags } from 'aws-cdk-lib';
import type { StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { PlatformConfig } from '../config.js';

export interface GlobalStackProps extends StackProps {
  readonly config: PlatformConfig;
  /** Region the stack deploys to: the config's global region. */
  readonly region: string;
}

export class GlobalStack extends Stack {
  readonly config: PlatformConfig;

  constructor(scope: Construct, id: string, props: GlobalStackProps) {
    const { config, region, ...stackProps } = props;
    super(scope, id, {
      description: `${config.projectName} global resources: global API, edge routing and central tables`,
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

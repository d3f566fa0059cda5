// The game-analytics ingestion API (seed 002): `<project>-analytics`, created when analytics_api.enabled.
import { Aws, CfnOutput, Stack, Tags } from 'aws-cdk-lib';
import type { StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { PlatformConfig } from '../config.js';

export interface AnalyticsStackProps extends StackProps {
  readonly config: PlatformConfig;
  /** Region the stack deploys to: analytics_api.region (default the global region). */
  readonly region: string;
}

export class AnalyticsStack extends Stack {
  readonly config: PlatformConfig;

  constructor(scope: Construct, id: string, props: AnalyticsStackProps) {
    const { config, region, ...stackProps } = props;
    super(scope, id, {
      description: `${config.projectName} game-analytics ingestion API`,
      ...stackProps,
      env: { account: process.env.CDK_DEFAULT_ACCOUNT, region },
    });
    this.config = config;
    Tags.of(this).add('Project', config.projectName);
    new CfnOutput(this, 'Partition', { value: Aws.PARTITION, description: 'Partition the stack runs in' });
  }
}

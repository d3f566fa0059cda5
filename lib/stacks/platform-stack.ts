/**
 * What every stack of the platform shares: the validated config, the `Project` tag, and an account that
 * stays environment-agnostic unless the CLI knows it, so `cdk synth` needs no credentials.
 */
import { Stack, Tags } from 'aws-cdk-lib';
import type { StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { PlatformConfig } from '../config.js';

export interface PlatformStackProps extends StackProps {
  /** The deployment config (lib/config.ts). */
  readonly config: PlatformConfig;
  /**
   * Account to deploy to. Default: CDK_DEFAULT_ACCOUNT, which the CDK CLI sets when it has credentials;
   * without one the stack is environment-agnostic.
   */
  readonly account?: string;
}

/** Where a stack deploys and how it describes itself. */
interface StackPlacement {
  /** Region the stack deploys to. */
  readonly region: string;
  /** The stack's description, unless the caller's props set one. */
  readonly description: string;
}

export abstract class PlatformStack extends Stack {
  /** The deployment config the stack was built from. */
  readonly config: PlatformConfig;

  protected constructor(scope: Construct, id: string, props: PlatformStackProps, placement: StackPlacement) {
    const { config, account, ...stackProps } = props;
    super(scope, id, {
      description: placement.description,
      ...stackProps,
      env: { account: account ?? process.env.CDK_DEFAULT_ACCOUNT, region: placement.region },
    });
    this.config = config;
    Tags.of(this).add('Project', config.projectName);
  }
}

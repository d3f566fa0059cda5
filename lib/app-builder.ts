// Builds the CDK app from its context: bin/app.ts uses it for `cdk synth`, tests call it directly.
import { App } from 'aws-cdk-lib';
import type { AppProps } from 'aws-cdk-lib';
import { configFromApp } from './config.js';
import type { PlatformConfig } from './config.js';
import { GlobalStack } from './stacks/global-stack.js';
import { RegionalStack } from './stacks/regional-stack.js';
import { AnalyticsStack } from './stacks/analytics-stack.js';

export interface PlatformApp {
  readonly app: App;
  readonly config: PlatformConfig;
  readonly globalStack: GlobalStack;
  /** By region, in the order of `config.regions`. */
  readonly regionalStacks: ReadonlyMap<string, RegionalStack>;
  /** Only when analytics_api.enabled. */
  readonly analyticsStack?: AnalyticsStack;
}

export interface BuildOptions {
  /** Account of every stack, as if the CLI had credentials (tests); default CDK_DEFAULT_ACCOUNT. */
  readonly account?: string;
}

/**
 * Creates the app and every stack. `context` is added to whatever the CDK CLI passes (cdk.json, `-c`);
 * throws ConfigError when the resulting config is invalid.
 */
export function buildApp(
  context: Record<string, unknown> = {},
  appProps: AppProps = {},
  options: BuildOptions = {},
): PlatformApp {
  // No CDK cross-region references (crossRegionReferences stays off, so an accidental one fails synth):
  // the accelerator listener ARN reaches the regional stacks through SSM parameters the global stack
  // writes (lib/constructs/accelerator-listener-parameters.ts); everything else is found by name.
  const app = new App({ ...appProps, context: { ...appProps.context, ...context } });
  const config = configFromApp(app);

  const globalStack = addGlobalStack(app, config, options);
  const regionalStacks = new Map<string, RegionalStack>();
  for (const region of config.regions) {
    const name = config.regionalStackName(region);
    const stack = new RegionalStack(app, name, {
      config,
      account: options.account,
      region,
      stackName: name,
      globalStack,
    });
    // Deploy order: the global stack (secret, tables, accelerator, aggregator role) first.
    stack.addStackDependency(
      globalStack,
      "reads the global stack's secrets, role and accelerator listener parameter by name",
    );
    regionalStacks.set(region, stack);
  }
  const analyticsStack = config.analyticsApi.enabled ? addAnalyticsStack(app, config, options) : undefined;
  return { app, config, globalStack, regionalStacks, ...(analyticsStack ? { analyticsStack } : {}) };
}

/** `<project>-global`, as the app has it (tests build it alone with this). */
export function addGlobalStack(app: App, config: PlatformConfig, options: BuildOptions = {}): GlobalStack {
  return new GlobalStack(app, config.globalStackName, {
    config,
    account: options.account,
    stackName: config.globalStackName,
  });
}

/** `<project>-analytics`, as the app has it (tests build it alone with this). */
export function addAnalyticsStack(
  app: App,
  config: PlatformConfig,
  options: BuildOptions = {},
): AnalyticsStack {
  return new AnalyticsStack(app, config.analyticsStackName, {
    config,
    account: options.account,
    stackName: config.analyticsStackName,
  });
}

// Builds the CDK app from its context: bin/app.ts uses it for `cdk synth`, tests call it directly.
import { App } from 'aws-cdk-lib';
import type { AppProps } from 'aws-cdk-lib';
import { configFromApp } from './config.js';
import type { PlatformConfig } from './config.js';
import { GlobalStack } from './stacks/global-stack.js';
import { RegionalStack } from './stacks/regional-stack.js';

export interface PlatformApp {
  readonly app: App;
  readonly config: PlatformConfig;
  readonly globalStack: GlobalStack;
  /** By region, in the order of `config.regions`. */
  readonly regionalStacks: ReadonlyMap<string, RegionalStack>;
}

/**
 * Creates the app and every stack. `context` is added to whatever the CDK CLI passes (cdk.json, `-c`);
 * throws ConfigError when the resulting config is invalid.
 */
export function buildApp(context: Record<string, unknown> = {}, appProps: AppProps = {}): PlatformApp {
  const app = new App({ ...appProps, context: { ...appProps.context, ...context } });
  const config = configFromApp(app);

  const globalStack = new GlobalStack(app, config.globalStackName, {
    config,
    region: config.globalRegion,
    stackName: config.globalStackName,
  });
  const regionalStacks = new Map<string, RegionalStack>();
  for (const region of config.regions) {
    const name = config.regionalStackName(region);
    regionalStacks.set(region, new RegionalStack(app, name, { config, region, stackName: name }));
  }
  return { app, config, globalStack, regionalStacks };
}

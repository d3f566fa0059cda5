// The CDK app as the fine-grained infrastructure tests build it: Lambda bundling and the CDK's built-in
// CloudFormation validation skipped (bundling is proven by test/infra/global-stack.test.ts and
// `npm run synth`; the asserted template content depends on neither), cdk-nag packs added before the
// first synth.
import { buildApp } from '../../lib/app-builder.js';
import type { PlatformApp } from '../../lib/app-builder.js';
import type { RegionalStack } from '../../lib/stacks/regional-stack.js';
import { addNagPacks } from './stack-templates.js';
import { assemblyOutdir } from './suite-temp-dir.js';

export function buildForAssertions(context: Record<string, unknown>, { nag = true } = {}): PlatformApp {
  const built = buildApp(
    { 'aws:cdk:bundling-stacks': [], ...context },
    { analyticsReporting: false, builtinCloudFormationValidation: false, outdir: assemblyOutdir() },
  );
  if (nag) addNagPacks(built.app);
  return built;
}

/** The app's regional stack for `region` (throws when the config has no such region). */
export function regionalStackOf(built: PlatformApp, region: string): RegionalStack {
  const stack = built.regionalStacks.get(region);
  if (!stack) throw new Error(`no regional stack for ${region}`);
  return stack;
}

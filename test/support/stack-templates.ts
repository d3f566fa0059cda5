// Helpers of the infrastructure tests: the cdk.json context, stable snapshots, cdk-nag runs and the
// API Gateway resource paths of a synthesized template.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { Aspects } from 'aws-cdk-lib';
import type { Stack } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';

/** The `context` of the repository's cdk.json: the default deployment config. */
export const cdkJsonContext = (): Record<string, unknown> =>
  (JSON.parse(readFileSync(join(process.cwd(), 'cdk.json'), 'utf8')) as { context: Record<string, unknown> })
    .context;

/** `arn:aws`, built from parts so no file of the repository holds a hard-coded partition. */
export const HARD_CODED_ARN = ['arn', 'aws'].join(':');

/** Asset hashes change with every code edit; snapshots assert structure, so they are masked. */
const ASSET_HASH = /[0-9a-f]{64}/g;

/** The stack's template with asset hashes replaced by `<asset-hash>`, for toMatchSnapshot(). */
export function snapshotOf(stack: Stack): unknown {
  return JSON.parse(JSON.stringify(Template.fromStack(stack).toJSON()).replace(ASSET_HASH, '<asset-hash>'));
}

/**
 * Adds the AwsSolutions and Serverless packs to every stack of the app. Call before the first synth
 * (Template.fromStack synthesizes); aspects added afterwards never run.
 */
export function addNagPacks(scope: IConstruct): void {
  Aspects.of(scope).add(new AwsSolutionsChecks({ verbose: true }));
  Aspects.of(scope).add(new ServerlessChecks({ verbose: true }));
}

/** Unsuppressed cdk-nag errors of a stack as `<path>: <message>` lines (empty = clean). */
export function nagErrors(stack: Stack): string[] {
  return Annotations.fromStack(stack)
    .findError('*', Match.stringLikeRegexp('^(AwsSolutions|Serverless)-'))
    .map((m) => `${m.id}: ${JSON.stringify(m.entry.data)}`);
}

interface ApiResource {
  readonly Properties: { readonly ParentId: { readonly Ref?: string }; readonly PathPart: string };
}

/** Full path (`/applications/{APPLICATION_ID}`) of every AWS::ApiGateway::Resource, by logical id. */
export function apiResourcePaths(template: Template): Map<string, string> {
  const all = template.findResources('AWS::ApiGateway::Resource') as Record<string, ApiResource>;
  const paths = new Map<string, string>();
  const pathOf = (id: string): string => {
    const known = paths.get(id);
    if (known !== undefined) return known;
    const resource = all[id];
    if (!resource) throw new Error(`no API Gateway resource ${id}`);
    const parent = resource.Properties.ParentId.Ref;
    const path = `${parent ? pathOf(parent) : ''}/${resource.Properties.PathPart}`;
    paths.set(id, path);
    return path;
  };
  for (const id of Object.keys(all)) pathOf(id);
  return paths;
}

/**
 * The one method setting every PlatformRestApi stage has (docs/global-stack.md): every method, INFO
 * execution logs, no data trace, detailed metrics, and the configured throttles.
 */
export const stageMethodSettings = (rateLimit: number, burstLimit: number): Record<string, unknown> => ({
  HttpMethod: '*',
  ResourcePath: '/*',
  LoggingLevel: 'INFO',
  DataTraceEnabled: false,
  MetricsEnabled: true,
  ThrottlingRateLimit: rateLimit,
  ThrottlingBurstLimit: burstLimit,
});

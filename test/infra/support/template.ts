// Helpers shared by the infrastructure tests: stable snapshots and cdk-nag runs.
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { Aspects } from 'aws-cdk-lib';
import type { Stack } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';

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

/**
 * lib/feature-regions.ts against CDK's own template validator (aws-cdk-lib 2.276, CloudFormation Validate
 * rule F3006 "Resource type … does not exist in <region>", from CloudFormation's per-region registry):
 * every gap the validator reports for a feature's resource types must be in the table, so a configuration
 * the validator would flag is refused by lib/config.ts first.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { App, CfnResource, Stack } from 'aws-cdk-lib';
import { ALL_REGIONS, isKnownRegion } from '../../contracts/partition.js';
import { FEATURE_GAPS, missingServices } from '../../lib/feature-regions.js';

interface Violation {
  readonly ruleName: string;
  readonly violatingConstructs: readonly { readonly constructPath: string }[];
}
interface ValidationReport {
  readonly pluginReports: readonly { readonly violations: readonly Violation[] }[];
}

/** Resource type → regions where the validator says it does not exist. */
function validatorGaps(types: readonly string[]): Map<string, Set<string>> {
  const outdir = mkdtempSync(join(tmpdir(), 'feature-regions-'));
  try {
    const app = new App({ outdir, analyticsReporting: false });
    for (const region of ALL_REGIONS) {
      const stack = new Stack(app, `S-${region}`, { env: { region, account: '123456789012' } });
      types.forEach((type, i) => new CfnResource(stack, `R${i}`, { type }));
    }
    app.synth();
    const report = JSON.parse(
      readFileSync(join(outdir, 'validation-report.json'), 'utf8'),
    ) as ValidationReport;
    const gaps = new Map<string, Set<string>>(types.map((t) => [t, new Set()]));
    for (const violation of report.pluginReports.flatMap((r) => r.violations)) {
      if (violation.ruleName !== 'F3006') continue;
      for (const { constructPath } of violation.violatingConstructs) {
        const [stackId, resourceId] = constructPath.split('/') as [string, string];
        gaps.get(types[Number(resourceId.slice(1))] ?? '')?.add(stackId.slice(2));
      }
    }
    return gaps;
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

describe('feature regions', () => {
  const types = [...new Set(FEATURE_GAPS.map((gap) => gap.resourceType))];
  const gaps = validatorGaps(types);

  test.each(types)('%s: every region the CDK validator reports missing is in the table', (type) => {
    const listed = new Set(FEATURE_GAPS.filter((g) => g.resourceType === type).flatMap((g) => g.regions));
    expect([...(gaps.get(type) ?? [])].filter((region) => !listed.has(region))).toEqual([]);
  });

  test('the validator reports the gaps the issue names (so the cross-check has teeth)', () => {
    expect([...(gaps.get('AWS::SageMaker::Domain') ?? [])]).toContain('ca-west-1');
    expect([...(gaps.get('AWS::Cognito::UserPool') ?? [])]).toEqual(['cn-north-1', 'cn-northwest-1']);
  });

  test('every row names known regions and an https source', () => {
    for (const gap of FEATURE_GAPS) {
      expect(gap.regions.filter((r) => !isKnownRegion(r))).toEqual([]);
      expect(gap.source).toMatch(/^https:\/\//);
    }
  });

  test('missingServices: the gaps of one feature in one region, nothing elsewhere', () => {
    expect(missingServices('studio', 'ca-west-1').map((g) => g.resourceType)).toEqual([
      'AWS::SageMaker::Domain',
    ]);
    expect(missingServices('studio', 'cn-north-1').map((g) => g.resourceType)).toEqual([
      'AWS::Cognito::UserPool',
    ]);
    expect(missingServices('studio', 'us-east-1')).toEqual([]);
    expect(missingServices('warehouse', 'ca-west-1')).toEqual([]);
  });
});

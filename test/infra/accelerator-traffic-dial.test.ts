// The accelerator endpoint group's traffic dial comes from `accelerator.traffic_dial_percentage`
// (default 100), so a drain set in config survives the next deploy instead of being reset to 100.
import { expect, test } from '@jest/globals';
import { Template } from 'aws-cdk-lib/assertions';
import { buildForAssertions, regionalStackOf } from '../support/platform-app.js';

test('each accelerator region takes its configured dial; a region not listed takes 100', () => {
  const built = buildForAssertions(
    { regions: ['us-east-1', 'eu-west-1'], accelerator: { traffic_dial_percentage: { 'eu-west-1': 0 } } },
    { nag: false },
  );
  const dial = (region: string): unknown[] =>
    Object.values(
      Template.fromStack(regionalStackOf(built, region)).findResources(
        'AWS::GlobalAccelerator::EndpointGroup',
      ),
    ).map((g) => (g as { Properties: { TrafficDialPercentage: unknown } }).Properties.TrafficDialPercentage);
  expect(dial('eu-west-1')).toEqual([0]);
  expect(dial('us-east-1')).toEqual([100]);
});

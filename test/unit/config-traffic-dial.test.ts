// `accelerator.traffic_dial_percentage` (lib/config.ts, docs/configuration.md): per configured region, a
// percentage from 0 to 100 (Global Accelerator's TrafficDialPercentage range); regions not listed keep 100.
import { describe, expect, test } from '@jest/globals';
import { ConfigError, loadConfig } from '../../lib/config.js';

const REGIONS = { regions: ['us-east-1', 'eu-west-1'] };

function problems(context: Record<string, unknown>): string[] {
  try {
    loadConfig(context);
  } catch (error) {
    if (error instanceof ConfigError)
      return error.problems.map((p) => `${p.path}: ${p.expected} / ${p.received}`);
    throw error;
  }
  return [];
}

describe('accelerator.traffic_dial_percentage', () => {
  test('absent: no region is dialled (each endpoint group takes 100)', () => {
    expect(loadConfig({}).accelerator.trafficDialPercentage).toEqual({});
  });

  test('a drain (0) and a partial dial are kept per region, from cdk.json or -c JSON text', () => {
    const fromJson = loadConfig({
      ...REGIONS,
      accelerator: { traffic_dial_percentage: { 'eu-west-1': 0, 'us-east-1': 37.5 } },
    });
    expect(fromJson.accelerator.trafficDialPercentage).toEqual({ 'eu-west-1': 0, 'us-east-1': 37.5 });
    const fromCli = loadConfig({ ...REGIONS, 'accelerator.traffic_dial_percentage': '{"eu-west-1": 0}' });
    expect(fromCli.accelerator.trafficDialPercentage).toEqual({ 'eu-west-1': 0 });
  });

  test('out of range, not a number, an unknown region or not an object: refused, naming the key', () => {
    expect(
      problems({
        ...REGIONS,
        accelerator: { traffic_dial_percentage: { 'us-east-1': 101, 'eu-west-1': '50%', 'ap-south-1': 0 } },
      }),
    ).toEqual([
      'accelerator.traffic_dial_percentage.us-east-1: a percentage from 0 to 100 / 101',
      'accelerator.traffic_dial_percentage.eu-west-1: a percentage from 0 to 100 / "50%"',
      'accelerator.traffic_dial_percentage.ap-south-1: a key that is one of the configured regions (us-east-1, eu-west-1) / an unknown region',
    ]);
    expect(problems({ accelerator: { traffic_dial_percentage: { 'us-east-1': -1 } } })).toHaveLength(1);
    expect(problems({ accelerator: { traffic_dial_percentage: 0 } })).toEqual([
      'accelerator.traffic_dial_percentage: an object of region to a percentage, such as {"us-east-1": 0} / 0',
    ]);
    expect(problems({ accelerator: { dial: {} } })[0]).toMatch(
      /^accelerator\.dial: one of the keys traffic_dial_percentage/,
    );
  });
});

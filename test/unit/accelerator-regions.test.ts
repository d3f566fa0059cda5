/**
 * lib/accelerator-regions.ts: the documented list of regions where Global Accelerator supports endpoint
 * groups, and how config uses it (docs/operations.md, "Adding and removing a region").
 */
import { describe, expect, test } from '@jest/globals';
import {
  ACCELERATOR_EXCLUDED_AZ_IDS,
  ACCELERATOR_REGIONS,
  acceleratorSupports,
} from '../../lib/accelerator-regions.js';
import { loadConfig } from '../../lib/config.js';
import { AWS_REGIONS } from '../../contracts/partition.js';

/** Commercial regions the issue names as outside Global Accelerator's endpoint regions. */
const UNSUPPORTED_EXAMPLES = ['ap-east-2', 'ap-southeast-6', 'ap-southeast-7', 'mx-central-1', 'me-west-1'];

describe('ACCELERATOR_REGIONS', () => {
  test('every entry is a known commercial region, listed once, in order', () => {
    for (const region of ACCELERATOR_REGIONS) expect(AWS_REGIONS.aws).toContain(region);
    expect(new Set(ACCELERATOR_REGIONS).size).toBe(ACCELERATOR_REGIONS.length);
    expect([...ACCELERATOR_REGIONS]).toEqual([...ACCELERATOR_REGIONS].sort());
  });

  test.each(UNSUPPORTED_EXAMPLES)('%s is a commercial region outside the list', (region) => {
    expect(AWS_REGIONS.aws).toContain(region);
    expect(acceleratorSupports(region)).toBe(false);
  });

  test('no other partition has an accelerator region', () => {
    for (const region of [...AWS_REGIONS['aws-cn'], ...AWS_REGIONS['aws-us-gov']]) {
      expect(acceleratorSupports(region)).toBe(false);
    }
  });

  test('the long-standing regions are supported', () => {
    for (const region of ['us-east-1', 'us-west-2', 'eu-west-1', 'ap-northeast-1']) {
      expect(acceleratorSupports(region)).toBe(true);
    }
  });

  test('excluded AZ IDs have the AZ ID form (e.g. usw1-az2)', () => {
    for (const id of ACCELERATOR_EXCLUDED_AZ_IDS) expect(id).toMatch(/^[a-z]+\d-az\d+$/);
  });
});

describe('config: acceleratorRegions, hasAccelerator, regionalApiOpenToAccount', () => {
  test('a region outside the list gets no endpoint group and an API open to the account', () => {
    const config = loadConfig({ regions: ['us-east-1', 'mx-central-1'] });
    expect(config.acceleratorRegions).toEqual(['us-east-1']);
    expect(config.hasAccelerator).toBe(true);
    expect(config.regionalApiOpenToAccount('us-east-1')).toBe(false);
    expect(config.regionalApiOpenToAccount('mx-central-1')).toBe(true);
  });

  test('no supported region: no accelerator, every regional API open', () => {
    const config = loadConfig({ regions: UNSUPPORTED_EXAMPLES });
    expect(config.acceleratorRegions).toEqual([]);
    expect(config.hasAccelerator).toBe(false);
    for (const region of UNSUPPORTED_EXAMPLES) expect(config.regionalApiOpenToAccount(region)).toBe(true);
  });
});

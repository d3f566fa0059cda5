/** fieldShape: what the strict decoding of a manifest depends on (keys, array lengths, leaf types, kind). */
import { describe, expect, it } from '@jest/globals';
import { fieldShape } from '../../../cluster/manifest-processor/src/field-check.js';

const job = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: 'a', labels: { app: 'x' } },
  spec: { backoffLimit: 0, template: { spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
  ...over,
});

describe('fieldShape', () => {
  it('ignores leaf values and key order', () => {
    const other = {
      spec: { template: { spec: { containers: [{ image: 'alpine', name: 'd' }] } }, backoffLimit: 3 },
      metadata: { labels: { app: 'y' }, name: 'b' },
      kind: 'Job',
      apiVersion: 'batch/v1',
    };
    expect(fieldShape(other)).toBe(fieldShape(job()));
  });

  it.each([
    ['another key', job({ metadata: { name: 'a', labels: { app: 'x' }, annotations: {} } })],
    ['a misspelt key', job({ spec: { backofLimit: 0, template: { spec: { containers: [] } } } })],
    ['another leaf type', job({ metadata: { name: 'a', labels: { app: 1 } } })],
    ['null for a value', job({ metadata: { name: null, labels: { app: 'x' } } })],
    ['another kind', job({ kind: 'CronJob' })],
    ['another apiVersion', job({ apiVersion: 'batch/v2' })],
    [
      'a longer array',
      job({
        spec: {
          backoffLimit: 0,
          template: {
            spec: {
              containers: [
                { name: 'c', image: 'busybox' },
                { name: 'c', image: 'busybox' },
              ],
            },
          },
        },
      }),
    ],
  ])('differs for %s', (_, manifest) => {
    expect(fieldShape(manifest)).not.toBe(fieldShape(job()));
  });

  it('is a fixed-size digest whatever the manifest size', () => {
    const big = job({ metadata: { name: 'a'.repeat(100_000), labels: { app: 'x' } } });
    expect(fieldShape(big)).toHaveLength(43);
  });
});

/**
 * The one duration parser of every duration option (cli/options.ts durationIn) and the rule that an
 * option without the option it needs is a usage error, through the real command line (in process).
 */
import { describe, expect, test } from '@jest/globals';
import { InvalidArgumentError } from '@commander-js/extra-typings';
import { durationIn } from '../../../cli/options.js';
import { runGco } from './support/run-in-process.js';

const anyDuration = durationIn(1, Number.MAX_SAFE_INTEGER);

describe('durations', () => {
  test.each([
    ['30s', 30],
    ['5m', 300],
    ['1h', 3600],
    ['2d', 172800],
    ['1h30m', 5400],
    ['1.5h', 5400],
    ['0.5s', 1],
    ['90', 90],
    [' 2m ', 120],
  ])('%j is %d seconds', (text, seconds) => {
    expect(anyDuration(text)).toBe(seconds);
  });

  test.each(['', '1 hour', '1H', '-5m', '5', 'm', '1w', '1h-30m', '1e3s', 'NaN'])('%j is refused', (text) => {
    const parse = text === '5' ? durationIn(10, 20) : anyDuration;
    expect(() => parse(text)).toThrow(InvalidArgumentError);
  });

  test('bounds are stated as durations', () => {
    expect(() => durationIn(1, 86400)('2d')).toThrow('expected a duration from 1s to 1d');
  });
});

describe('options that cannot apply', () => {
  test('--wait-timeout without --wait: exit 2, naming both options', async () => {
    const result = await runGco([
      'queue',
      'submit',
      'job.yaml',
      '--target-region',
      'us-east-1',
      '--wait-timeout',
      '5m',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('gco: --wait-timeout applies only with --wait');
  });

  test('--wait-timeout takes a duration with --wait, and refuses a malformed one', async () => {
    const result = await runGco([
      'inference',
      'scale',
      'x',
      '--replicas',
      '1',
      '--wait',
      '--wait-timeout',
      'soon',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('expected a duration such as 30s, 5m, 1h or 2d');
  });
});

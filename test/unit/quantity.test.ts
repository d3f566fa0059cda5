import {
  formatBytes,
  formatCpu,
  parseQuantity,
  QuantityError,
  tryParseQuantity,
} from '../../cluster/shared/quantity.js';

describe('Kubernetes quantity parser', () => {
  test.each([
    ['500m', 0.5],
    ['0.5', 0.5],
    ['2', 2],
    ['1.5Gi', 1.5 * 2 ** 30],
    ['1e3', 1000],
    ['1E3', 1000],
    ['1e-3', 0.001],
    ['100Mi', 100 * 2 ** 20],
    ['128974848', 128974848],
    ['129M', 129e6],
    ['123Mi', 123 * 2 ** 20],
    ['1k', 1000],
    ['1Ki', 1024],
    ['1E', 1e18],
    ['250u', 0.00025],
    ['10n', 1e-8],
    ['.5', 0.5],
    ['5.', 5],
    ['+1', 1],
    ['-1', -1],
    ['0', 0],
  ])('%s → %d', (input, expected) => {
    expect(parseQuantity(input)).toBeCloseTo(expected, 12);
  });

  test('accepts plain JSON numbers', () => {
    expect(parseQuantity(2)).toBe(2);
    expect(parseQuantity(0.25)).toBe(0.25);
  });

  test.each([
    '',
    ' 1',
    '1 ',
    'abc',
    '1KB',
    '1gi',
    '1.2.3',
    'm',
    '1e',
    '--1',
    '1Mi3',
    'Infinity',
    'NaN',
    '1e400',
  ])('rejects %j', (input) => {
    expect(() => parseQuantity(input)).toThrow(QuantityError);
    expect(tryParseQuantity(input)).toBeUndefined();
  });

  test('tryParseQuantity ignores non-quantity types', () => {
    expect(tryParseQuantity(undefined)).toBeUndefined();
    expect(tryParseQuantity({})).toBeUndefined();
    expect(tryParseQuantity('4Gi')).toBe(4 * 2 ** 30);
  });

  test('formats CPU and memory the Kubernetes way', () => {
    expect(formatCpu(0.25)).toBe('250m');
    expect(formatCpu(2)).toBe('2');
    expect(formatBytes(2 * 2 ** 30)).toBe('2Gi');
    expect(formatBytes(1536 * 2 ** 20)).toBe('1536Mi');
    expect(formatBytes(1000)).toBe('1000');
  });
});

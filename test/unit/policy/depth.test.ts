import {
  findTooDeep,
  loadPolicyConfig,
  ValidationPolicy,
} from '../../../cluster/manifest-processor/src/policy/index.js';

/** { a: { a: { … } } } `levels` objects deep, built without recursion. */
function nested(levels: number): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let current = root;
  for (let i = 1; i < levels; i++) {
    const next: Record<string, unknown> = {};
    current.a = next;
    current = next;
  }
  return root;
}

function configMapWithData(data: unknown) {
  // apiVersion/kind/metadata + data: `data` sits at depth 2.
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'svc-jobs' }, data };
}

describe('findTooDeep', () => {
  test('the manifest object itself is depth 1', () => {
    expect(findTooDeep({}, 1)).toBeUndefined();
    expect(findTooDeep({ a: {} }, 1)).toEqual(['a']);
    expect(findTooDeep(nested(5), 5)).toBeUndefined();
    expect(findTooDeep(nested(6), 5)).toEqual(['a', 'a', 'a', 'a', 'a']);
  });

  test('arrays count as levels and report their index', () => {
    expect(findTooDeep({ a: [[1]] }, 3)).toBeUndefined();
    expect(findTooDeep({ a: [0, [[1]]] }, 3)).toEqual(['a', 1, 0]);
  });

  test('scalars do not count', () => {
    expect(findTooDeep({ a: 'x', b: 1, c: null, d: true }, 1)).toBeUndefined();
    expect(findTooDeep('x', 1)).toBeUndefined();
  });

  test('the first offender in document order is reported', () => {
    expect(findTooDeep({ a: { ok: 1 }, b: { c: { d: {} } }, e: { f: { g: {} } } }, 3)).toEqual([
      'b',
      'c',
      'd',
    ]);
  });

  test('100,000 levels are found without overflowing the stack', () => {
    const deep = nested(100_000);
    expect(() => findTooDeep(deep, 32)).not.toThrow();
    expect(findTooDeep(deep, 32)).toHaveLength(32);
  });

  test('a cycle is infinitely deep', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(findTooDeep(cyclic, 10)).toHaveLength(10);
  });

  test('shared sub-objects are not re-walked exponentially', () => {
    let shared: unknown[] = [];
    for (let i = 0; i < 30; i++) shared = [shared, shared];
    const start = Date.now();
    expect(findTooDeep(shared, 40)).toBeUndefined();
    expect(Date.now() - start).toBeLessThan(1000);
  });
});

describe('max_depth rule', () => {
  const policy = new ValidationPolicy(loadPolicyConfig({}));

  test('nesting at the limit passes', () => {
    expect(policy.check([configMapWithData(nested(31))])).toEqual([]);
  });

  test('nesting past the limit is a violation naming the path', () => {
    const violations = policy.check([configMapWithData(nested(32))]);
    expect(violations.map((v) => v.rule)).toEqual(['max_depth']);
    expect(violations[0]?.field).toBe(`data${'.a'.repeat(31)}`);
    expect(violations[0]?.message).toMatch(
      /^manifests\[0\]\.data\.a.*nested deeper than 32 levels \(rule max_depth\)$/,
    );
  });

  test('a hostile 100,000-level manifest is rejected, not a crash', () => {
    const violations = policy.check([configMapWithData(nested(100_000))]);
    expect(violations.map((v) => v.rule)).toEqual(['max_depth']);
  });

  test('MAX_MANIFEST_DEPTH changes the limit', () => {
    const strict = new ValidationPolicy(loadPolicyConfig({ MAX_MANIFEST_DEPTH: '3' }));
    expect(strict.check([configMapWithData({ a: 'b' })])).toEqual([]);
    expect(strict.check([configMapWithData({ a: { b: {} } })]).map((v) => v.rule)).toEqual(['max_depth']);
  });
});

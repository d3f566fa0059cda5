import { containsAll } from '../../cluster/manifest-processor/src/apply.js';

describe('containsAll (is a submitted manifest already in effect?)', () => {
  const live = {
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web' }, resourceVersion: '7' },
    spec: {
      replicas: 2,
      template: { spec: { containers: [{ name: 'c', image: 'x:1', imagePullPolicy: 'IfNotPresent' }] } },
    },
    status: { readyReplicas: 2 },
  };
  test('fields the server added (defaults, status, metadata) do not count', () => {
    expect(
      containsAll(live, {
        metadata: { name: 'web', labels: { app: 'web' } },
        spec: { replicas: 2, template: { spec: { containers: [{ name: 'c', image: 'x:1' }] } } },
      }),
    ).toBe(true);
  });
  test.each([
    [{ spec: { replicas: 3 } }],
    [{ metadata: { labels: { tier: 'front' } } }],
    [{ spec: { template: { spec: { containers: [{ name: 'c', image: 'x:2' }] } } } }],
    [{ spec: { template: { spec: { containers: [{ name: 'c' }, { name: 'd' }] } } } }],
  ])('a difference is detected: %j', (wanted) => {
    expect(containsAll(live, wanted)).toBe(false);
  });
});

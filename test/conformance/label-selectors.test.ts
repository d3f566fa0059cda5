// Conformance: list with label selectors — equality-based, set-based and existence (`key`, `!key`).
// https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors
// https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#list-and-watch-filtering
import { refusal, uniqueName } from './kube.js';
import { patience, useTarget } from './target.js';

const target = useTarget();
/** Short name → created name, for the four labelled ConfigMaps. */
const names: Record<string, string> = {};
/** Restricts every list to this file's objects (other files and other users may share the namespace). */
let scope: string;

const LABELS: Record<string, Record<string, string>> = {
  web: { tier: 'web', env: 'prod' },
  db: { tier: 'db', env: 'prod' },
  cache: { tier: 'cache', env: 'dev' },
  plain: { env: 'dev' },
};

beforeAll(async () => {
  scope = Object.entries(target.labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  for (const [short, labels] of Object.entries(LABELS)) {
    names[short] = uniqueName(`conf-sel-${short}`);
    await target.core.createNamespacedConfigMap({
      namespace: target.namespace,
      body: { metadata: { name: names[short], labels: { ...target.labels, ...labels } } },
    });
  }
}, patience.testMs);

/** The short names of this file's ConfigMaps matching `selector`, sorted. */
async function matching(selector: string): Promise<string[]> {
  const list = await target.core.listNamespacedConfigMap({
    namespace: target.namespace,
    labelSelector: `${scope},${selector}`,
  });
  const byName = new Map(Object.entries(names).map(([short, name]) => [name, short]));
  return list.items.map((c) => byName.get(c.metadata?.name ?? '') ?? `unexpected:${c.metadata?.name}`).sort();
}

describe('label selectors', () => {
  it.each([
    ['tier=web', ['web']],
    ['tier==web', ['web']],
    ['tier!=web', ['cache', 'db', 'plain']], // != also matches objects without the key
    ['env=prod,tier=db', ['db']],
  ])('equality-based %s', async (selector, expected) => {
    expect(await matching(selector)).toEqual(expected);
  });

  it.each([
    ['tier in (web,db)', ['db', 'web']],
    ['tier notin (web)', ['cache', 'db', 'plain']], // notin also matches objects without the key
    ['tier', ['cache', 'db', 'web']],
    ['!tier', ['plain']],
    ['env in (dev),!tier', ['plain']],
    ['env=prod,tier notin (db)', ['web']],
  ])('set-based and existence %s', async (selector, expected) => {
    expect(await matching(selector)).toEqual(expected);
  });

  it('a selector nothing matches lists nothing', async () => {
    expect(await matching('tier in (queue)')).toEqual([]);
  });

  it.each(['tier in web', 'tier=(web)', 'tier notin', '!'])(
    'an unparsable selector %p is refused with 400 BadRequest',
    async (selector) => {
      const { code, status } = await refusal(
        target.core.listNamespacedConfigMap({ namespace: target.namespace, labelSelector: selector }),
      );
      expect(code).toBe(400);
      expect(status.reason).toBe('BadRequest');
    },
  );
});

/**
 * Generated input: a valid Job manifest with one unknown field inserted at a random depth (any object of
 * the manifest except the free-form maps: labels, annotations, resource requests and limits). Submitted
 * to manifest-processor (signed, real HTTP) over the Kubernetes API simulator, each must be refused with
 * a 4xx naming the field's path, exactly as a real API server with fieldValidation=Strict names it
 * (https://kubernetes.io/docs/reference/using-api/api-concepts/#field-validation); validate must give the
 * same answer, and nothing may be stored in the cluster. Fixed seed, bounded runs (FUZZ_SEED / FUZZ_RUNS).
 */
import fc from 'fast-check';
import { startHarness, type Harness } from '../../integration/manifest-processor/harness.js';
import { jobManifest } from './operations.js';
import { RUNS_PER_OPERATION, SEED } from './suite.js';

type Json = Record<string, unknown>;

/** Objects whose keys are data, not fields: an extra key there is not an unknown field. */
const FREE_FORM_MAPS = new Set(['labels', 'annotations', 'requests', 'limits']);

interface Site {
  /** Path of the object, in the API server's notation (`spec.template.spec.containers[0]`). */
  path: string;
  node: Json;
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Every object of the manifest a field can be added to, outermost first. */
function sitesOf(node: Json, path = ''): Site[] {
  const out: Site[] = [{ path, node }];
  for (const [key, value] of Object.entries(node)) {
    if (FREE_FORM_MAPS.has(key)) continue;
    const child = path === '' ? key : `${path}.${key}`;
    if (isObject(value)) out.push(...sitesOf(value, child));
    if (Array.isArray(value))
      value.forEach((item, i) => {
        if (isObject(item)) out.push(...sitesOf(item, `${child}[${i}]`));
      });
  }
  return out;
}

/** A camelCase name no Kubernetes 1.34 type declares (no field of the built-in schemas ends in "Xq"). */
const unknownName = fc.stringMatching(/^[a-z][a-zA-Z]{1,12}$/).map((word) => `${word}Xq`);
const anyValue = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.integer(),
  fc.boolean(),
  fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }),
  fc.dictionary(fc.stringMatching(/^[a-z]{1,8}$/), fc.integer(), { maxKeys: 2 }),
);

const withUnknownField = fc
  .record({ manifest: jobManifest, pick: fc.nat(), name: unknownName, value: anyValue })
  .map(({ manifest, pick, name, value }) => {
    const copy = structuredClone(manifest) as Json;
    const sites = sitesOf(copy);
    const site = sites[pick % sites.length]!;
    site.node[name] = value;
    return { manifest: copy, field: site.path === '' ? name : `${site.path}.${name}` };
  });

describe('manifest-processor: a random unknown field at a random depth', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  test(`each is refused with its path and nothing is stored (seed ${SEED}, ${RUNS_PER_OPERATION} runs)`, async () => {
    const depths = new Set<number>();
    await fc.assert(
      fc.asyncProperty(withUnknownField, async ({ manifest, field }) => {
        depths.add(field.split('.').length);
        const body = { manifests: [manifest], namespace: 'svc-jobs' };
        const submit = await h.call('POST', '/api/v1/manifests', body);
        expect(submit.status).toBe(400);
        expect(submit.body.success).toBe(false);
        expect(submit.body.resources[0].status).toBe('failed');
        expect(submit.body.resources[0].message).toContain(`unknown field "${field}"`);

        const validate = await h.call('POST', '/api/v1/manifests/validate', body);
        expect([validate.status, validate.body.valid]).toEqual([200, false]);
        expect(validate.body.resources).toEqual(submit.body.resources);

        const metadata = manifest.metadata as { name: string; namespace?: string };
        expect(h.sim.get('batch/v1', 'Job', metadata.namespace ?? 'svc-jobs', metadata.name)).toBeUndefined();
      }),
      { seed: SEED, numRuns: RUNS_PER_OPERATION },
    );
    expect((await h.call('GET', '/api/v1/jobs')).body.total).toBe(0);
    // The runs reached the top level, metadata, the Job spec, the pod spec and a container.
    expect([...depths].sort()).toEqual(expect.arrayContaining([1, 2, 3, 4, 5]));
  }, 120_000);
});

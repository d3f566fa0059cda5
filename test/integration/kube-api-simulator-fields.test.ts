// Server-side field validation of the Kubernetes API simulator over real HTTP (and @kubernetes/client-node),
// against the messages of upstream's test/integration/apiserver/field_validation_test.go:
// `fieldValidation` Strict / Warn / Ignore on create, replace, json/merge/strategic patch and server-side
// apply, duplicate keys in the raw body, an invalid directive, and the /openapi/v3 documents kubectl reads.

import { ApiException, BatchV1Api } from '@kubernetes/client-node';
import fc from 'fast-check';

import type { KubeApiSimulator } from '../../local/kube-api-simulator/index.js';
import { kubeConfigFor, startKubeApiSimulator } from '../../local/kube-api-simulator/index.js';
import { at } from '../support/json.js';

const NS = 'fields';
const JOBS = `/apis/batch/v1/namespaces/${NS}/jobs`;

let sim: KubeApiSimulator;

beforeAll(async () => {
  // Long pending/running times: the jobs here are only stored, never meant to run during the test.
  sim = await startKubeApiSimulator({ kubelet: { pendingMs: 600_000, runningMs: 600_000 } });
  sim.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
});

afterAll(async () => {
  await sim.close();
});

interface Answer {
  status: number;
  body: unknown;
  warnings: string[];
}

async function call(
  method: string,
  path: string,
  body?: string,
  contentType = 'application/json',
): Promise<Answer> {
  const init: RequestInit = { method, headers: { 'content-type': contentType } };
  if (body !== undefined) init.body = body;
  const res = await fetch(`${sim.url}${path}`, init);
  const text = await res.text();
  const warning = res.headers.get('warning');
  return {
    status: res.status,
    body: text ? (JSON.parse(text) as unknown) : undefined,
    // fetch joins repeated headers with ", "; each value is `299 - "<quoted text>"`.
    warnings: warning
      ? [...warning.matchAll(/299 - "((?:[^"\\]|\\.)*)"/g)].map((m) => (m[1] ?? '').replace(/\\(.)/g, '$1'))
      : [],
  };
}

function job(
  name: string,
  spec: Record<string, unknown> = {},
  container: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: NS },
    spec: {
      backoffLimit: 1,
      ...spec,
      template: {
        spec: {
          restartPolicy: 'Never',
          containers: [{ name: 'main', image: 'busybox:1.36', command: ['true'], ...container }],
        },
      },
    },
  };
}

const TYPOS_MESSAGE =
  'Job in version "v1" cannot be handled as a Job: strict decoding error: unknown field "spec.backofLimit", unknown field "spec.template.spec.containers[0].comand"';

function typoJob(name: string): string {
  return JSON.stringify(job(name, { backofLimit: 2 }, { comand: ['echo', 'hi'] }));
}

describe('create (POST)', () => {
  test('Strict refuses every unknown field with its path and stores nothing', async () => {
    const r = await call('POST', `${JOBS}?fieldValidation=Strict`, typoJob('strict-create'));
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'BadRequest',
      code: 400,
      message: TYPOS_MESSAGE,
    });
    expect(sim.get('batch/v1', 'Job', NS, 'strict-create')).toBeUndefined();
  });

  test('a misspelt containers list is named, not reported as a missing container', async () => {
    const manifest = job('strict-contianers');
    const spec = at(manifest, 'spec.template.spec') as Record<string, unknown>;
    spec.contianers = spec.containers;
    delete spec.containers;
    const r = await call('POST', `${JOBS}?fieldValidation=Strict`, JSON.stringify(manifest));
    expect(r.status).toBe(400);
    expect(at(r.body, 'message')).toBe(
      'Job in version "v1" cannot be handled as a Job: strict decoding error: unknown field "spec.template.spec.contianers"',
    );
  });

  test('Warn (and no directive, the default) stores the object without the unknown fields, one Warning each', async () => {
    for (const [name, query] of [
      ['warn-create', '?fieldValidation=Warn'],
      ['default-create', ''],
    ] as const) {
      const r = await call('POST', `${JOBS}${query}`, typoJob(name));
      expect(r.status).toBe(201);
      expect(r.warnings).toEqual([
        'unknown field "spec.backofLimit"',
        'unknown field "spec.template.spec.containers[0].comand"',
      ]);
      const stored = sim.get('batch/v1', 'Job', NS, name);
      expect(at(stored, 'spec.backoffLimit')).toBe(1);
      expect(at(stored, 'spec')).not.toHaveProperty('backofLimit');
      expect(at(stored, 'spec.template.spec.containers.0')).not.toHaveProperty('comand');
    }
  });

  test('Ignore drops the unknown fields silently', async () => {
    const r = await call('POST', `${JOBS}?fieldValidation=Ignore`, typoJob('ignore-create'));
    expect(r.status).toBe(201);
    expect(r.warnings).toEqual([]);
    expect(at(sim.get('batch/v1', 'Job', NS, 'ignore-create'), 'spec')).not.toHaveProperty('backofLimit');
  });

  test('duplicate keys (lost by JSON.parse) are found in the raw body, in document order with unknown ones', async () => {
    const body = `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"dupes","name":"dupes","namespace":"${NS}","unknownMeta":1},
      "spec":{"unknownDupe":1,"unknownDupe":2,"backoffLimit":1,"backoffLimit":2,"template":{"spec":{"restartPolicy":"Never",
      "containers":[{"name":"main","image":"busybox:1.36","imagePullPolicy":"Always","imagePullPolicy":"Never"}]}}}}`;
    const strict = await call('POST', `${JOBS}?fieldValidation=Strict`, body);
    expect(strict.status).toBe(400);
    expect(at(strict.body, 'message')).toBe(
      'Job in version "v1" cannot be handled as a Job: strict decoding error: duplicate field "metadata.name", unknown field "metadata.unknownMeta", unknown field "spec.unknownDupe", duplicate field "spec.backoffLimit", duplicate field "spec.template.spec.containers[0].imagePullPolicy"',
    );
    const warn = await call('POST', `${JOBS}?fieldValidation=Warn`, body);
    expect(warn.status).toBe(201);
    expect(warn.warnings).toHaveLength(5);
    expect(at(sim.get('batch/v1', 'Job', NS, 'dupes'), 'spec.backoffLimit')).toBe(2); // the last one wins
  });

  test('an unsupported fieldValidation value is refused as upstream ValidateFieldValidation does', async () => {
    const r = await call('POST', `${JOBS}?fieldValidation=strict`, JSON.stringify(job('bad-directive')));
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({
      reason: 'Invalid',
      message:
        'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"',
    });
    expect(sim.get('batch/v1', 'Job', NS, 'bad-directive')).toBeUndefined();
  });

  test('through @kubernetes/client-node: its typed serializer drops unknown fields before sending', async () => {
    // ObjectSerializer writes only the attributes of the generated model, so a typo never reaches the
    // server from the typed API: the Strict create succeeds and the stored Job has its defaults.
    const batch = kubeConfigFor(sim.url).makeApiClient(BatchV1Api);
    const body = job('client-node', { backofLimit: 2 });
    const created = await batch.createNamespacedJob({ namespace: NS, body, fieldValidation: 'Strict' });
    expect(created.metadata?.name).toBe('client-node');
    expect(at(sim.get('batch/v1', 'Job', NS, 'client-node'), 'spec')).not.toHaveProperty('backofLimit');
    let caught: unknown;
    try {
      await batch.createNamespacedJob({
        namespace: NS,
        body: job('client-node-bad'),
        fieldValidation: 'Loud',
      });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ApiException);
    expect((caught as ApiException<unknown>).code).toBe(422);
  });
});

describe('replace (PUT)', () => {
  test('Strict refuses, Warn stores without the field and warns, UpdateOptions names a bad value', async () => {
    expect((await call('POST', JOBS, JSON.stringify(job('replaced')))).status).toBe(201);
    const current = sim.get('batch/v1', 'Job', NS, 'replaced');
    // No resourceVersion: the job controller may update the status between these requests.
    const next = {
      ...current,
      metadata: { ...current?.metadata, resourceVersion: undefined },
      spec: { ...(at(current, 'spec') as object), backofLimit: 3 },
    };
    const strict = await call('PUT', `${JOBS}/replaced?fieldValidation=Strict`, JSON.stringify(next));
    expect(strict.status).toBe(400);
    expect(at(strict.body, 'message')).toBe(
      'Job in version "v1" cannot be handled as a Job: strict decoding error: unknown field "spec.backofLimit"',
    );
    const warn = await call('PUT', `${JOBS}/replaced`, JSON.stringify(next));
    expect(warn.status).toBe(200);
    expect(warn.warnings).toEqual(['unknown field "spec.backofLimit"']);
    expect(at(sim.get('batch/v1', 'Job', NS, 'replaced'), 'spec')).not.toHaveProperty('backofLimit');
    const bad = await call('PUT', `${JOBS}/replaced?fieldValidation=Loud`, JSON.stringify(next));
    expect(bad.status).toBe(422);
    expect(at(bad.body, 'message')).toMatch(
      /^UpdateOptions\.meta\.k8s\.io "" is invalid: fieldValidation: Unsupported value: "Loud"/,
    );
  });
});

describe('patch', () => {
  const patchTypes = {
    merge: 'application/merge-patch+json',
    strategic: 'application/strategic-merge-patch+json',
    json: 'application/json-patch+json',
  };

  test.each([
    ['merge', '{"spec":{"backofLimit":2,"paused":1,"paused":2}}'],
    ['strategic', '{"spec":{"backofLimit":2,"paused":1,"paused":2}}'],
  ] as const)(
    '%s patch: duplicates of the body, then unknown fields of the patched object',
    async (kind, body) => {
      const name = `patch-${kind}`;
      expect((await call('POST', JOBS, JSON.stringify(job(name)))).status).toBe(201);
      const before = sim.get('batch/v1', 'Job', NS, name);
      const strict = await call('PATCH', `${JOBS}/${name}?fieldValidation=Strict`, body, patchTypes[kind]);
      expect(strict.status).toBe(400);
      expect(strict.body).toMatchObject({
        reason: 'BadRequest',
        message:
          'strict decoding error: duplicate field "spec.paused", unknown field "spec.backofLimit", unknown field "spec.paused"',
      });
      // (The job controller may update the status meanwhile; the refused patch changed nothing in spec.)
      expect(at(sim.get('batch/v1', 'Job', NS, name), 'spec')).toEqual(at(before, 'spec'));
      const warn = await call('PATCH', `${JOBS}/${name}?fieldValidation=Warn`, body, patchTypes[kind]);
      expect(warn.status).toBe(200);
      expect(warn.warnings).toEqual([
        'duplicate field "spec.paused"',
        'unknown field "spec.backofLimit"',
        'unknown field "spec.paused"',
      ]);
      const ignore = await call('PATCH', `${JOBS}/${name}?fieldValidation=Ignore`, body, patchTypes[kind]);
      expect(ignore.status).toBe(200);
      expect(ignore.warnings).toEqual([]);
      expect(at(sim.get('batch/v1', 'Job', NS, name), 'spec')).not.toHaveProperty('backofLimit');
    },
  );

  test('strategic patch of a container by its merge key names the list index', async () => {
    expect((await call('POST', JOBS, JSON.stringify(job('patch-container')))).status).toBe(201);
    const body = '{"spec":{"template":{"spec":{"containers":[{"name":"main","comand":["x"]}]}}}}';
    const r = await call(
      'PATCH',
      `${JOBS}/patch-container?fieldValidation=Strict`,
      body,
      patchTypes.strategic,
    );
    expect(at(r.body, 'message')).toBe(
      'strict decoding error: unknown field "spec.template.spec.containers[0].comand"',
    );
  });

  test('json patch: unknown and duplicate operation fields, then unknown fields of the result', async () => {
    expect((await call('POST', JOBS, JSON.stringify(job('patch-json')))).status).toBe(201);
    const body = `[{"op":"add","path":"/spec/unknown1","value":"v","foo":"bar"},
      {"op":"add","path":"/spec/unknown2","path":"/spec/unknown3","value":"v"}]`;
    const strict = await call('PATCH', `${JOBS}/patch-json?fieldValidation=Strict`, body, patchTypes.json);
    expect(strict.status).toBe(400);
    expect(at(strict.body, 'message')).toBe(
      'strict decoding error: json patch unknown field "[0].foo", json patch duplicate field "[1].path", unknown field "spec.unknown1", unknown field "spec.unknown3"',
    );
    const warn = await call('PATCH', `${JOBS}/patch-json`, body, patchTypes.json);
    expect(warn.status).toBe(200);
    expect(warn.warnings).toHaveLength(4);
    expect(at(sim.get('batch/v1', 'Job', NS, 'patch-json'), 'spec')).not.toHaveProperty('unknown1');
  });

  test('an unsupported value names PatchOptions', async () => {
    expect((await call('POST', JOBS, JSON.stringify(job('patch-bad')))).status).toBe(201);
    const r = await call('PATCH', `${JOBS}/patch-bad?fieldValidation=No`, '{}', patchTypes.merge);
    expect(r.status).toBe(422);
    expect(at(r.body, 'details.kind')).toBe('PatchOptions');
  });
});

describe('server-side apply', () => {
  const APPLY = 'application/apply-patch+yaml';

  test('an unknown field fails the typed conversion with HTTP 500 whatever fieldValidation says', async () => {
    for (const directive of ['Strict', 'Warn', 'Ignore']) {
      const body = JSON.stringify(job('ssa', { backofLimit: 2 }, { comand: ['x'] }));
      const r = await call(
        'PATCH',
        `${JOBS}/ssa?fieldManager=test&fieldValidation=${directive}`,
        body,
        APPLY,
      );
      expect(r.status).toBe(500);
      // A plain Go error upstream: the Status has no reason (kubernetes/kubernetes#122480, #139253).
      expect(r.body).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        code: 500,
        message: `failed to create typed patch object (${NS}/ssa; batch/v1, Kind=Job): errors:\n  .spec.backofLimit: field not declared in schema\n  .spec.template.spec.containers[name="main"].comand: field not declared in schema`,
      });
    }
    expect(sim.get('batch/v1', 'Job', NS, 'ssa')).toBeUndefined();
  });

  test('a core kind is named "/v1" and a single error stands alone', async () => {
    const cm = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"date":{"a":"b"}}';
    const r = await call('PATCH', `/api/v1/namespaces/${NS}/configmaps/cm?fieldManager=test`, cm, APPLY);
    expect(r.status).toBe(500);
    expect(at(r.body, 'message')).toBe(
      `failed to create typed patch object (${NS}/cm; /v1, Kind=ConfigMap): .date: field not declared in schema`,
    );
  });

  test('duplicate keys: Strict fails YAML strict decoding by line, Warn warns and applies', async () => {
    const body =
      '{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"ssa-dupes"},\n"spec":{"backoffLimit":1,\n"backoffLimit":2,"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"main","image":"busybox:1.36"}]}}}}';
    const strict = await call(
      'PATCH',
      `${JOBS}/ssa-dupes?fieldManager=test&fieldValidation=Strict`,
      body,
      APPLY,
    );
    expect(strict.status).toBe(400);
    expect(at(strict.body, 'message')).toBe(
      'error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 3: key "backoffLimit" already set in map',
    );
    const warn = await call('PATCH', `${JOBS}/ssa-dupes?fieldManager=test`, body, APPLY);
    expect(warn.status).toBe(201);
    expect(warn.warnings).toEqual(['line 3: key "backoffLimit" already set in map']);
  });
});

test('kinds without an upstream model (CRD-backed) keep accepting any field', async () => {
  const tgb = {
    apiVersion: 'elbv2.k8s.aws/v1beta1',
    kind: 'TargetGroupBinding',
    metadata: { name: 'tgb', namespace: NS },
    spec: { anything: true },
  };
  const r = await call(
    'POST',
    `/apis/elbv2.k8s.aws/v1beta1/namespaces/${NS}/targetgroupbindings?fieldValidation=Strict`,
    JSON.stringify(tgb),
  );
  expect(r.status).toBe(201);
  expect(r.warnings).toEqual([]);
});

describe('/openapi/v3', () => {
  test('the root lists each group-version with a hashed URL; each document tags PATCH with its GVK and fieldValidation', async () => {
    const root = await call('GET', '/openapi/v3');
    expect(root.status).toBe(200);
    const paths = at(root.body, 'paths') as Record<string, { serverRelativeURL: string }>;
    expect(Object.keys(paths)).toEqual(expect.arrayContaining(['api/v1', 'apis/batch/v1', 'apis/apps/v1']));
    expect(Object.keys(paths)).not.toContain('apis/elbv2.k8s.aws/v1beta1');
    expect(paths['apis/batch/v1']?.serverRelativeURL).toMatch(
      /^\/openapi\/v3\/apis\/batch\/v1\?hash=[0-9A-F]{128}$/,
    );

    const doc = await call('GET', paths['apis/batch/v1']?.serverRelativeURL ?? '');
    expect(doc.status).toBe(200);
    expect(at(doc.body, 'openapi')).toBe('3.0.0');
    const patch = at(doc.body, 'paths./apis/batch/v1/namespaces/{namespace}/jobs/{name}.patch');
    expect(at(patch, 'x-kubernetes-group-version-kind')).toEqual({
      group: 'batch',
      version: 'v1',
      kind: 'Job',
    });
    expect(at(patch, 'parameters')).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'fieldValidation', in: 'query' })]),
    );
    const jobSpec = at(doc.body, 'components.schemas.V1JobSpec.properties') as Record<string, unknown>;
    expect(jobSpec.backoffLimit).toEqual({ type: 'integer', format: 'int32' });
    expect(jobSpec).not.toHaveProperty('backofLimit');
    expect(at(doc.body, 'components.schemas.V1Job')).not.toHaveProperty('x-kubernetes-group-version-kind');

    expect((await call('GET', '/openapi/v3/apis/elbv2.k8s.aws/v1beta1')).status).toBe(404);
    expect((await call('GET', '/openapi/v3/apis/nope/v1')).status).toBe(404);
  });
});

// ---- generated inputs ----

/** Places in a valid Job where a field can be added: [path to an object, its own strict-decoding path]. */
const PLACES: [string[], string][] = [
  [[], ''],
  [['metadata'], 'metadata'],
  [['spec'], 'spec'],
  [['spec', 'template'], 'spec.template'],
  [['spec', 'template', 'spec'], 'spec.template.spec'],
  [['spec', 'template', 'spec', 'containers', '0'], 'spec.template.spec.containers[0]'],
  [
    ['spec', 'template', 'spec', 'containers', '0', 'resources'],
    'spec.template.spec.containers[0].resources',
  ],
  [['spec', 'template', 'spec', 'securityContext'], 'spec.template.spec.securityContext'],
];

test('property: a random unknown field at a random depth is refused under Strict with exactly its path, nothing stored', async () => {
  let n = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...PLACES),
      // Field names no Job model at these places declares (upstream fields are lowerCamel ASCII words).
      fc.stringMatching(/^[a-z][a-zA-Z0-9]{0,11}$/).map((s) => `x${s}Unknown`),
      fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.boolean(), fc.constant({ nested: 1 })),
      async ([place, pathText], field, value) => {
        const name = `prop-${n++}`;
        const manifest = job(name, {}, { resources: { requests: { cpu: '10m' } } });
        const spec = at(manifest, 'spec.template.spec') as Record<string, unknown>;
        spec.securityContext = { runAsNonRoot: true };
        let target: unknown = manifest;
        for (const step of place) target = (target as Record<string, unknown>)[step];
        (target as Record<string, unknown>)[field] = value;
        const r = await call('POST', `${JOBS}?fieldValidation=Strict`, JSON.stringify(manifest));
        const path = pathText ? `${pathText}.${field}` : field;
        expect(r.status).toBe(400);
        expect(at(r.body, 'message')).toBe(
          `Job in version "v1" cannot be handled as a Job: strict decoding error: unknown field "${path}"`,
        );
        expect(sim.get('batch/v1', 'Job', NS, name)).toBeUndefined();
      },
    ),
    { seed: 22, numRuns: 60 },
  );
});

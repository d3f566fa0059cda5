/**
 * Issue 13, cluster services: every case as a new user sends it, SigV4-signed through the edge APIs
 * (API Gateway emulator → control-plane proxy → accelerator or regional bridge → ALB router → service).
 * Each answer is what docs/api-limits.md says: no 500, no silent acceptance, no leaked internals, and the
 * inputs the spec allows are accepted.
 */
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import type { HTTPValidationError } from '../../contracts/api/errors.js';
import { startLocalPlatform, type LocalPlatform } from '../../local/platform.js';
import { jobManifest } from '../support/cluster-fixtures.js';
import { edgeClient, poll, type EdgeClient, type Reply } from './support/edge.js';

// Starts the whole local platform (services, emulators, esbuild bundles) in this process: tests and
// hooks get an explicit budget here; the hook that starts it names its own.
jest.setTimeout(30_000);

let platform: LocalPlatform;
let edge: EdgeClient;
let region: string;

beforeAll(async () => {
  platform = await startLocalPlatform({ analytics: false, kubelet: { pendingMs: 50, runningMs: 150 } });
  edge = edgeClient(platform);
  region = platform.endpoints.region;
}, 30_000);
afterAll(() => platform?.close());

interface Send {
  method?: string;
  path: string;
  query?: Record<string, string>;
  /** Sent as JSON unless `text` is given. */
  json?: unknown;
  text?: string;
  contentType?: string;
  headers?: Record<string, string>;
  api?: 'global' | 'regional';
}

/** A signed call with the body's length stated, as curl and the SDKs send it (DELETE bodies included). */
function send(s: Send): Promise<Reply> {
  const body = s.text ?? (s.json === undefined ? undefined : JSON.stringify(s.json));
  const opts = {
    method: s.method ?? 'GET',
    path: s.path,
    ...(s.query ? { query: s.query } : {}),
    headers: {
      ...(body === undefined
        ? {}
        : {
            'content-type': s.contentType ?? 'application/json',
            'content-length': String(Buffer.byteLength(body)),
          }),
      ...s.headers,
    },
    ...(body === undefined ? {} : { body }),
  };
  return s.api === 'regional' ? edge.regional(region, opts) : edge.global(opts);
}

/** A Job the validation policy accepts; the simulated kubelet runs it to success. */
const job = (name: string) => jobManifest(name, { command: ['true'] });

/** The answer is a small HTTPValidationError whose first item's loc starts with `loc`, nothing internal in it. */
function expectValidationError(reply: Reply, loc: (string | number)[]): void {
  expect(reply.status).toBe(422);
  expect(reply.headers['content-type']).toMatch(/^application\/json/);
  const [first] = reply.json.detail as HTTPValidationError['detail'];
  expect(first?.loc.slice(0, loc.length)).toEqual(loc);
  expect([typeof first?.msg, typeof first?.type]).toEqual(['string', 'string']);
  expect(reply.body.length).toBeLessThan(12 * 1024);
  expect(reply.text).not.toMatch(/Buffer|call stack|statusCode|\.ts:|node_modules/);
}

describe('1. max_spot_price beyond DynamoDB’s range, with an Idempotency-Key', () => {
  test('each answers 422 saying what to send; none consumes the key; the corrected body creates the job', async () => {
    const submit = (price: string) =>
      send({
        method: 'POST',
        path: '/api/v1/queue/jobs',
        headers: { 'idempotency-key': 'e2e-price-key' },
        text: `{"manifest":${JSON.stringify(job('priced'))},"target_region":"${region}","max_spot_price":${price},"spot_instance_type":"m5.large"}`,
      });
    for (const price of ['1e126', '1e300', '1e-131', '1e400']) {
      const refused = await submit(price);
      expectValidationError(refused, ['body', 'max_spot_price']);
      expect(refused.json.detail[0].msg).toMatch(/send a value from 0\.000001 to 10000/);
    }
    const corrected = await submit('0.5');
    expect(corrected.status).toBe(200);
    expect(corrected.json.idempotent_replay).toBe(false);
    const fetched = await send({ path: `/api/v1/queue/jobs/${String(corrected.json.job_id)}` });
    expect([fetched.status, fetched.json.max_spot_price]).toEqual([200, 0.5]);
  });
});

describe('2. one rule for every body: an unknown top-level field is 422 extra_forbidden', () => {
  test('a bulk delete with "stauts" deletes nothing', async () => {
    const created = await send({
      method: 'POST',
      path: '/api/v1/manifests',
      json: { manifests: [job('kept')], namespace: 'svc-jobs' },
    });
    expect(created.status).toBe(200);
    await poll(
      () => send({ path: '/api/v1/jobs/svc-jobs/kept' }),
      (r) => r.json?.status === 'succeeded',
    );
    const typo = await send({
      method: 'DELETE',
      path: '/api/v1/jobs',
      json: { namespace: 'svc-jobs', stauts: 'failed' },
    });
    expectValidationError(typo, ['body', 'stauts']);
    expect(typo.json.detail[0]).toMatchObject({
      type: 'extra_forbidden',
      msg: 'Extra inputs are not permitted',
    });
    expect((await send({ path: '/api/v1/jobs/svc-jobs/kept' })).status).toBe(200);
  });

  test('a submission with "dryrun" applies nothing; the manifests inside stay free-form', async () => {
    const typo = await send({
      method: 'POST',
      path: '/api/v1/manifests',
      json: {
        dryrun: true,
        namespace: 'svc-jobs',
        manifests: [{ ...job('not-applied'), anyField: { free: true } }],
      },
    });
    expectValidationError(typo, ['body', 'dryrun']);
    expect((await send({ path: '/api/v1/jobs/svc-jobs/not-applied' })).status).toBe(404);
  });
});

test('3. a form-encoded body (curl -d) is 415 {"detail"} with no echo of internals', async () => {
  const reply = await send({
    method: 'POST',
    path: '/api/v1/manifests',
    text: 'manifests=x&namespace=svc-jobs',
    contentType: 'application/x-www-form-urlencoded',
  });
  expect(reply.status).toBe(415);
  expect(reply.json).toEqual({ detail: expect.stringMatching(/application\/json/) });
  expect(reply.text).not.toMatch(/Buffer|"data"/);
});

test('4. 5,000-deep JSON is one 422 HTTPValidationError naming the documented limit', async () => {
  for (const path of ['/api/v1/manifests', '/api/v1/queue/jobs', '/api/v1/templates']) {
    const reply = await send({
      method: 'POST',
      path,
      text: `{"manifest":{"a":${'['.repeat(5000)}${']'.repeat(5000)}}}`,
    });
    expectValidationError(reply, ['body', 'manifest', 'a', 0]);
    expect(reply.json.detail[0].msg).toMatch(/at most 64 levels deep/);
  }
});

test('5. bulk delete accepts "status": null (nullable, as the spec says)', async () => {
  const reply = await send({
    method: 'DELETE',
    path: '/api/v1/jobs',
    json: { namespace: 'svc-jobs', status: null, label_selector: null, older_than_days: null, dry_run: true },
  });
  expect(reply.status).toBe(200);
  expect(reply.json).toMatchObject({ dry_run: true });
});

test('6. a target_region that is not a deployment region is 422 naming the regions', async () => {
  const reply = await send({
    method: 'POST',
    path: '/api/v1/queue/jobs',
    json: { manifest: job('lost'), target_region: 'us-eats-1' },
  });
  expectValidationError(reply, ['body', 'target_region']);
  expect(reply.json.detail[0]).toMatchObject({
    type: 'enum',
    input: 'us-eats-1',
    ctx: { expected: `'${region}'` },
  });
});

describe('9. text parameters follow FastAPI: decimal integers only; pydantic’s booleans', () => {
  test.each(['0x10', '1e3', '+5', '1.0'])('limit=%s is 422 int_parsing', async (limit) => {
    const reply = await send({ path: '/api/v1/jobs', query: { limit } });
    expectValidationError(reply, ['query', 'limit']);
    expect(reply.json.detail[0].type).toBe('int_parsing');
  });

  test('limit=16 is served; adhoc=yes and adhoc=0 are booleans', async () => {
    expect((await send({ path: '/api/v1/jobs', query: { limit: '16' } })).json.limit).toBe(16);
    expect((await send({ path: '/api/v1/cost/reports', query: { adhoc: 'yes' } })).json.kind).toBe('adhoc');
    expect((await send({ path: '/api/v1/cost/reports', query: { adhoc: '0' } })).json.kind).toBe('scheduled');
  });
});

test('10. a path parameter over 100 characters is a small 422, not a 414 echoing the URL', async () => {
  for (const path of [`/api/v1/queue/jobs/${'j'.repeat(150)}`, `/api/v1/templates/${'t'.repeat(150)}`]) {
    const reply = await send({ path });
    expect(reply.status).toBe(422);
    expect(reply.json.detail[0]).toMatchObject({ type: 'string_too_long' });
    expect(reply.text).not.toContain('/api/v1/');
  }
  // An encoded `/` in a Kubernetes name would change the API server URL it lands in.
  expectValidationError(await send({ path: '/api/v1/jobs/svc-jobs/a%2Fb' }), ['path', 'name']);
});

test('12. POST /api/v1/cost/reports with no body means {}', async () => {
  const reply = await send({ method: 'POST', path: '/api/v1/cost/reports' });
  expect(reply.status).toBe(200);
  expect(reply.json).toMatchObject({ kind: 'adhoc', window: { hours: 24 } });
});

test('13. regional OPTIONS /api/v1/{proxy+} reaches the service: 204 with Allow', async () => {
  const jobs = await send({ api: 'regional', method: 'OPTIONS', path: '/api/v1/jobs' });
  expect(jobs.status).toBe(204);
  expect(jobs.headers.allow).toBe('DELETE, GET, HEAD, OPTIONS');
  const one = await send({ api: 'regional', method: 'OPTIONS', path: '/api/v1/queue/jobs/some-id' });
  expect([one.status, one.headers.allow]).toEqual([204, 'DELETE, GET, HEAD, OPTIONS']);
  expect((await send({ api: 'regional', method: 'OPTIONS', path: '/api/v1/nowhere' })).status).toBe(404);
});

describe('strictness: what the spec allows is accepted; the kept security rule says what to do', () => {
  test('a webhook secret of 13 characters and a namespace filter outside the allowed ones', async () => {
    const reply = await send({
      method: 'POST',
      path: '/api/v1/webhooks',
      json: {
        url: 'https://127.0.0.1:9/hook',
        events: ['job.failed'],
        secret: 'my-13-char-sk',
        namespace: 'ml-team',
      },
    });
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({ has_secret: true, namespace: 'ml-team' });
    expect(reply.json.warnings).toEqual([expect.stringContaining('namespace ml-team')]);
  });

  test('a template name that is not a DNS label, and name/namespace among its parameters', async () => {
    const reply = await send({
      method: 'POST',
      path: '/api/v1/templates',
      json: {
        name: 'Nightly Training',
        manifest: { ...job('{{name}}') },
        parameters: { name: 'nightly', namespace: 'svc-jobs' },
      },
    });
    expect(reply.status).toBe(200);
    const created = await send({
      method: 'POST',
      path: `/api/v1/jobs/from-template/${encodeURIComponent('Nightly Training')}`,
      json: { name: 'nightly-1' },
    });
    expect(created.status).toBe(200);
    expect(created.json.job).toMatchObject({ name: 'nightly-1', namespace: 'svc-jobs' });
  });

  test('an http:// webhook URL is refused, and the answer says what to send', async () => {
    const reply = await send({
      method: 'POST',
      path: '/api/v1/webhooks',
      json: { url: 'http://127.0.0.1:9/hook', events: ['job.failed'] },
    });
    expectValidationError(reply, ['body', 'url']);
    expect(reply.json.detail[0].msg).toMatch(
      /use an https:\/\/ URL whose host resolves only to public addresses/,
    );
  });
});

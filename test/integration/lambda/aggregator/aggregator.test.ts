/**
 * The aggregator against real local HTTP servers standing in for three regional APIs, each verifying
 * SigV4 like API Gateway. Deadlines are configured short; assertions are on behaviour, not wall clock.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import { GetParametersByPathCommand, SSMClient } from '@aws-sdk/client-ssm';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { createHandler, handler as envHandler } from '../../../../lambda/aggregator/index.js';
import { SsmDiscovery, StaticDiscovery } from '../../../../lambda/shared/regional-apis.js';
import { parseRegionalApis } from '../../../../contracts/regional-apis.js';
import { signSigV4 } from '../../../../contracts/runtime/sigv4.js';
import { lambdaContext } from '../../../support/lambda-context.js';
import { apiEvent } from '../../../unit/lambda/events.js';
import { jobView, refusedUrl, startRegionalApiStub, type RegionalApiStub } from './regional-api-stub.js';

const CREDENTIALS = { accessKeyId: 'AKIDAGGREGATORTEST', secretAccessKey: 'aggregator-test-secret-key' };
const KNOWN = new Map([[CREDENTIALS.accessKeyId, CREDENTIALS]]);
const REGIONS = ['ap-southeast-2', 'eu-west-1', 'us-east-1'] as const;

function withQuery(query: Record<string, string>): Partial<APIGatewayProxyEvent> {
  return {
    queryStringParameters: query,
    multiValueQueryStringParameters: Object.fromEntries(Object.entries(query).map(([k, v]) => [k, [v]])),
  };
}

function discoveryOf(stubs: RegionalApiStub[]): StaticDiscovery {
  return new StaticDiscovery(
    parseRegionalApis(JSON.stringify(Object.fromEntries(stubs.map((s) => [s.region, s.url])))),
  );
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests assert on arbitrary JSON shapes
type Json = any;

function bodyOf(result: { body: string }): Json {
  return JSON.parse(result.body);
}

const JOBS: Record<string, ReturnType<typeof jobView>[]> = {
  'us-east-1': [
    jobView('train-a', 'svc-jobs', '2025-01-01T10:00:00.000Z'),
    jobView('eval-b', 'svc-jobs', '2025-01-03T10:00:00.000Z', 'succeeded'),
    jobView('zeta', 'team-x', '2025-01-05T10:00:00.000Z'),
  ],
  'eu-west-1': [
    jobView('batch-c', 'svc-jobs', '2025-01-02T10:00:00.000Z'),
    jobView('alpha', 'svc-jobs', '2025-01-06T10:00:00.000Z', 'failed'),
  ],
  'ap-southeast-2': [
    jobView('mid', 'svc-jobs', '2025-01-04T10:00:00.000Z'),
    jobView('train-a', 'svc-jobs', '2025-01-07T10:00:00.000Z'),
  ],
};

describe('aggregator across three regional APIs', () => {
  let stubs: RegionalApiStub[];

  beforeAll(async () => {
    stubs = await Promise.all(
      REGIONS.map((region) =>
        startRegionalApiStub({
          region,
          credentials: KNOWN,
          jobs: JOBS[region] ?? [],
          status: {
            allowed_namespaces: ['svc-jobs', `team-${region}`],
            resource_limits: {
              max_cpu_cores: region === 'eu-west-1' ? 32 : 64,
              max_memory_bytes: 1e11,
              max_gpus: 8,
            },
            templates: { count: region.length },
            webhooks: { count: 1 },
          },
        }),
      ),
    );
  });
  afterAll(async () => {
    await Promise.all(stubs.map((s) => s.close()));
  });
  afterEach(() => {
    for (const stub of stubs) {
      stub.received.length = 0;
      stub.rejected.length = 0;
    }
  });

  const aggregator = () =>
    createHandler({ discovery: discoveryOf(stubs), credentials: CREDENTIALS, settings: { budgetMs: 5000 } });

  test('the stubs reject unsigned and wrongly signed calls with 403 (they really verify)', async () => {
    const stub = stubs[0]!;
    const unsigned = await fetch(`${stub.url}/api/v1/health`);
    expect(unsigned.status).toBe(403);
    const wrongKey = await signSigV4({
      method: 'GET',
      baseUrl: stub.url,
      path: '/api/v1/health',
      region: stub.region,
      credentials: { ...CREDENTIALS, secretAccessKey: 'not-the-secret' },
    });
    expect((await fetch(wrongKey.url, { headers: wrongKey.headers })).status).toBe(403);
    const wrongRegion = await signSigV4({
      method: 'GET',
      baseUrl: stub.url,
      path: '/api/v1/health',
      region: 'us-west-2',
      credentials: CREDENTIALS,
    });
    expect((await fetch(wrongRegion.url, { headers: wrongRegion.headers })).status).toBe(403);
    const tamperedQuery = await signSigV4({
      method: 'GET',
      baseUrl: stub.url,
      path: '/api/v1/jobs',
      query: { namespace: 'svc-jobs' },
      region: stub.region,
      credentials: CREDENTIALS,
    });
    expect(
      (await fetch(tamperedQuery.url.replace('svc-jobs', 'kube-system'), { headers: tamperedQuery.headers }))
        .status,
    ).toBe(403);
    const good = await signSigV4({
      method: 'GET',
      baseUrl: stub.url,
      path: '/api/v1/health',
      region: stub.region,
      credentials: CREDENTIALS,
    });
    expect((await fetch(good.url, { headers: good.headers })).status).toBe(200);
    expect(stub.rejected).toEqual([
      'missing or malformed Authorization',
      'signature mismatch',
      'credential scope region mismatch',
      'signature mismatch',
    ]);
  });

  test('GET /api/v1/global/health: one signed call per region, overall healthy with counts', async () => {
    const result = await aggregator()(apiEvent('GET', '/api/v1/global/health'));
    expect(result.statusCode).toBe(200);
    expect(result.headers?.['content-type']).toBe('application/json');
    const body = bodyOf(result);
    expect(body.status).toBe('healthy');
    expect(body.summary).toEqual({ total: 3, healthy: 3, unhealthy: 0, unreachable: 0 });
    expect(Object.keys(body.regions)).toEqual([...REGIONS]);
    for (const region of REGIONS) {
      expect(body.regions[region]).toMatchObject({ status: 200, ok: true, error: null });
      expect(body.regions[region].body).toMatchObject({ status: 'healthy', region });
      expect(typeof body.regions[region].duration_ms).toBe('number');
      expect(body.region_status[region]).toBe('healthy');
    }
    expect(body.failed_regions).toEqual([]);
    for (const stub of stubs) {
      expect(stub.rejected).toEqual([]);
      expect(stub.received.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /prod/api/v1/health']);
      expect(stub.received[0]?.headers.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIDAGGREGATORTEST\//,
      );
    }
  });

  test('GET /api/v1/global/jobs: concatenated with region, default createdAt:desc, sums and has_more', async () => {
    const result = await aggregator()(apiEvent('GET', '/api/v1/global/jobs', withQuery({ limit: '2' })));
    expect(result.statusCode).toBe(200);
    const body = bodyOf(result);
    // Each region got limit=2: us-east-1 has 3 jobs (has_more), the others fit.
    expect(body.jobs.map((j: Json) => `${j.region}:${j.name}`)).toEqual([
      'ap-southeast-2:train-a',
      'eu-west-1:alpha',
      'us-east-1:zeta',
      'ap-southeast-2:mid',
      'us-east-1:eval-b',
      'eu-west-1:batch-c',
    ]);
    expect(body).toMatchObject({
      count: 6,
      total: 7,
      has_more: true,
      limit: 2,
      offset: 0,
      sort: 'createdAt:desc',
    });
    expect(body.failed_regions).toEqual([]);
    // Per-region bodies keep the page facts; the jobs themselves live once, in the merged list.
    expect(body.regions['us-east-1'].body).toEqual({
      count: 2,
      total: 3,
      limit: 2,
      offset: 0,
      has_more: true,
      sort: 'createdAt:desc',
    });
  });

  test('GET /api/v1/global/jobs?sort=name:asc passes the query string to every region and sorts alike', async () => {
    const query = {
      sort: 'name:asc',
      namespace: 'svc-jobs',
      limit: '10',
      offset: '0',
      status: 'running',
      label_selector: 'team=ml,tier=a b',
    };
    const result = await aggregator()(apiEvent('GET', '/api/v1/global/jobs', withQuery(query)));
    const body = bodyOf(result);
    for (const stub of stubs) {
      expect(stub.received).toHaveLength(1);
      expect(stub.received[0]?.path).toBe('/prod/api/v1/jobs');
      expect(stub.received[0]?.query).toEqual(query);
    }
    expect(body.jobs.map((j: Json) => `${j.name}@${j.region}`)).toEqual([
      'alpha@eu-west-1',
      'batch-c@eu-west-1',
      'eval-b@us-east-1',
      'mid@ap-southeast-2',
      'train-a@ap-southeast-2',
      'train-a@us-east-1',
    ]);
    expect(body).toMatchObject({
      sort: 'name:asc',
      total: 6,
      count: 6,
      has_more: false,
      limit: 10,
      offset: 0,
    });
  });

  test('GET /api/v1/global/status: templates, webhooks, resource limits and namespaces per region', async () => {
    const body = bodyOf(await aggregator()(apiEvent('GET', '/api/v1/global/status')));
    expect(body.allowed_namespaces).toEqual({
      'ap-southeast-2': ['svc-jobs', 'team-ap-southeast-2'],
      'eu-west-1': ['svc-jobs', 'team-eu-west-1'],
      'us-east-1': ['svc-jobs', 'team-us-east-1'],
    });
    expect(body.resource_limits['eu-west-1']).toEqual({
      max_cpu_cores: 32,
      max_memory_bytes: 1e11,
      max_gpus: 8,
    });
    expect(body.resource_limits['us-east-1'].max_cpu_cores).toBe(64);
    expect(body.templates).toEqual({
      'ap-southeast-2': { count: 14 },
      'eu-west-1': { count: 9 },
      'us-east-1': { count: 9 },
    });
    expect(body.webhooks['us-east-1']).toEqual({ count: 1 });
    expect(body.regions['us-east-1'].body.service).toBe('manifest-processor');
    for (const stub of stubs)
      expect(stub.received.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /prod/api/v1/status']);
  });

  test('DELETE /api/v1/global/jobs: the JSON body reaches every region verbatim; counts are summed', async () => {
    const requestBody = '{"namespace":"svc-jobs","dry_run":false,"older_than_days":7}';
    const result = await aggregator()(apiEvent('DELETE', '/api/v1/global/jobs', { body: requestBody }));
    expect(result.statusCode).toBe(200);
    const body = bodyOf(result);
    for (const stub of stubs) {
      expect(stub.received).toHaveLength(1);
      expect(stub.received[0]).toMatchObject({
        method: 'DELETE',
        path: '/prod/api/v1/jobs',
        body: requestBody,
      });
      expect(stub.received[0]?.headers['content-type']).toBe('application/json');
    }
    // svc-jobs: us-east-1 2, eu-west-1 2, ap-southeast-2 2 matched; the stub fails the first of each.
    expect(body).toMatchObject({ dry_run: false, matched: 6, deleted: 3, failed: 3, failed_regions: [] });
    expect(body.jobs).toHaveLength(6);
    expect(new Set(body.jobs.map((j: Json) => j.region))).toEqual(new Set(REGIONS));
    expect(body.regions['eu-west-1'].body).toEqual({ dry_run: false, matched: 2, deleted: 1, failed: 1 });
  });

  test('DELETE dry run is reported as such', async () => {
    const body = bodyOf(
      await aggregator()(apiEvent('DELETE', '/api/v1/global/jobs', { body: '{"dry_run":true}' })),
    );
    expect(body).toMatchObject({ dry_run: true, matched: 7, deleted: 0, failed: 0 });
  });

  test('every x-*-target-region header, in any case, is rejected with 400 before any region is called', async () => {
    const handler = aggregator();
    for (const headers of [
      { 'X-SVC-Target-Region': 'us-east-1' },
      { 'x-svc-target-region': 'eu-west-1' },
      { 'X-Svc-Target-REGION': '' },
      { 'X-GCO-Target-Region': 'eu-west-1' },
      { 'X-Target-Region': 'eu-west-1' },
    ]) {
      const result = await handler(apiEvent('GET', '/api/v1/global/jobs', { headers }));
      expect(result.statusCode).toBe(400);
      const name = Object.keys(headers)[0]!.toLowerCase();
      expect(bodyOf(result).message).toBe(
        `The ${name} header is not honoured: a request is served by the region of the API it is sent to. /api/v1/global/* already covers every region; for one region, call that region's regional API.`,
      );
    }
    const multi = await handler(
      apiEvent('DELETE', '/api/v1/global/jobs', {
        multiValueHeaders: { 'X-Svc-Target-Region': ['us-east-1'] },
        body: '{}',
      }),
    );
    expect(multi.statusCode).toBe(400);
    for (const stub of stubs) expect(stub.received).toEqual([]);
  });

  test('other paths are 404, other methods 405, bad bodies 400 — all as {"message":…}', async () => {
    const handler = aggregator();
    const notFound = await handler(apiEvent('GET', '/api/v1/global/policy'));
    expect(notFound.statusCode).toBe(404);
    expect(bodyOf(notFound)).toEqual({ message: 'Not found' });
    expect((await handler(apiEvent('GET', '/api/v1/jobs'))).statusCode).toBe(404);
    const wrongMethod = await handler(apiEvent('POST', '/api/v1/global/jobs', { body: '{}' }));
    expect(wrongMethod.statusCode).toBe(405);
    expect(wrongMethod.headers?.allow).toBe('GET, DELETE');
    expect((await handler(apiEvent('DELETE', '/api/v1/global/jobs', { body: 'not json' }))).statusCode).toBe(
      400,
    );
    expect((await handler(apiEvent('DELETE', '/api/v1/global/jobs', { body: '[1]' }))).statusCode).toBe(400);
    const b64 = await handler(
      apiEvent('DELETE', '/api/v1/global/jobs', { body: 'e30=', isBase64Encoded: true }),
    );
    expect(b64.statusCode).toBe(400);
    for (const stub of stubs) expect(stub.received).toEqual([]);
  });

  test('wrong credentials: every region answers 403 and is reported; the aggregate is a 502 (no fault of the caller)', async () => {
    const handler = createHandler({
      discovery: discoveryOf(stubs),
      credentials: { accessKeyId: 'AKIDUNKNOWN', secretAccessKey: 'x' },
      settings: { budgetMs: 5000 },
    });
    const result = await handler(apiEvent('GET', '/api/v1/global/health'));
    expect(result.statusCode).toBe(502);
    const body = bodyOf(result);
    expect(body.message).toMatch(/^No region answered successfully/);
    expect(body.status).toBe('unhealthy');
    expect(body.failed_regions).toEqual([...REGIONS]);
    for (const region of REGIONS) {
      expect(body.regions[region]).toMatchObject({ status: 403, ok: false });
      expect(body.regions[region].error).toMatch(/^HTTP 403: /);
      expect(body.region_status[region]).toBe('unreachable');
    }
  });

  test('a region in REGIONS that discovery does not return is reported, not dropped', async () => {
    const handler = createHandler({
      discovery: discoveryOf(stubs),
      credentials: CREDENTIALS,
      settings: { budgetMs: 5000, expectedRegions: ['us-west-2', 'us-east-1'] },
    });
    const body = bodyOf(await handler(apiEvent('GET', '/api/v1/global/health')));
    expect(Object.keys(body.regions)).toEqual(['ap-southeast-2', 'eu-west-1', 'us-east-1', 'us-west-2']);
    expect(body.regions['us-west-2']).toEqual({
      status: null,
      ok: false,
      body: null,
      error: 'regional API not discovered',
      duration_ms: 0,
    });
    expect(body.status).toBe('degraded');
    expect(body.summary).toEqual({ total: 4, healthy: 3, unhealthy: 0, unreachable: 1 });
  });
});

describe('the status of the merged answer when no region succeeds', () => {
  let up: RegionalApiStub[];
  let unhealthy: RegionalApiStub[];
  let broken: RegionalApiStub[];
  let refused: string;

  beforeAll(async () => {
    up = await Promise.all(
      ['eu-west-1', 'us-east-1'].map((region) =>
        startRegionalApiStub({ region, credentials: KNOWN, jobs: JOBS[region] ?? [] }),
      ),
    );
    unhealthy = await Promise.all(
      ['eu-west-1', 'us-east-1'].map((region) =>
        startRegionalApiStub({ region, credentials: KNOWN, healthy: false }),
      ),
    );
    broken = [await startRegionalApiStub({ region: 'eu-west-1', credentials: KNOWN, mode: 'error' })];
    refused = await refusedUrl();
  });
  afterAll(async () => {
    await Promise.all([...up, ...unhealthy, ...broken].map((s) => s.close()));
  });

  const over = (apis: Record<string, string>) =>
    createHandler({
      discovery: new StaticDiscovery(parseRegionalApis(JSON.stringify(apis))),
      credentials: CREDENTIALS,
      settings: { budgetMs: 5000 },
    });
  const urls = (stubs: RegionalApiStub[]) => Object.fromEntries(stubs.map((s) => [s.region, s.url]));

  test('every region refuses the query with the same 4xx (limit=0): that status, each refusal in place', async () => {
    const result = await over(urls(up))(apiEvent('GET', '/api/v1/global/jobs', withQuery({ limit: '0' })));
    expect(result.statusCode).toBe(422);
    const body = bodyOf(result);
    expect(body.message).toBe(
      'Every region refused the request with HTTP 422; the answer of each is in regions.<region>.body',
    );
    expect(body.failed_regions).toEqual(['eu-west-1', 'us-east-1']);
    expect(body.regions['us-east-1']).toMatchObject({ status: 422, ok: false });
    expect(body.regions['us-east-1'].body.detail[0].loc).toEqual(['query', 'limit']);
  });

  test('DELETE with no body: every region answers 422 "Field required", so does the aggregate', async () => {
    const result = await over(urls(up))(apiEvent('DELETE', '/api/v1/global/jobs'));
    expect(result.statusCode).toBe(422);
    expect(bodyOf(result).regions['eu-west-1'].body.detail[0].msg).toBe('Field required');
  });

  test('one region answering is enough for a 200, with the others listed as failed', async () => {
    const result = await over({ ...urls(up), 'sa-east-1': refused })(apiEvent('GET', '/api/v1/global/jobs'));
    expect(result.statusCode).toBe(200);
    const body = bodyOf(result);
    expect(body.message).toBeUndefined();
    expect(body.failed_regions).toEqual(['sa-east-1']);
  });

  test('failures that differ, or that are not refusals of the request (5xx, unreachable): 502', async () => {
    for (const path of ['/api/v1/global/jobs', '/api/v1/global/status', '/api/v1/global/health']) {
      const result = await over({ ...urls(broken), 'sa-east-1': refused })(apiEvent('GET', path));
      expect([path, result.statusCode]).toEqual([path, 502]);
      const body = bodyOf(result);
      expect(body.message).toMatch(/^No region answered successfully/);
      expect(body.regions['sa-east-1'].error).toBe('request failed: ECONNREFUSED');
    }
  });

  test('health: no region healthy but some report an unhealthy cluster: 503, like each region', async () => {
    const result = await over(urls(unhealthy))(apiEvent('GET', '/api/v1/global/health'));
    expect(result.statusCode).toBe(503);
    const body = bodyOf(result);
    expect(body.status).toBe('unhealthy');
    expect(body.region_status).toEqual({ 'eu-west-1': 'unhealthy', 'us-east-1': 'unhealthy' });
  });

  test('no regional API at all: 503', async () => {
    const result = await createHandler({
      discovery: new StaticDiscovery({ apis: [], problems: [] }),
      credentials: CREDENTIALS,
    })(apiEvent('GET', '/api/v1/global/status'));
    expect(result.statusCode).toBe(503);
    expect(bodyOf(result).message).toMatch(/^No regional API is registered/);
  });
});

describe('aggregator with failing regions', () => {
  const DEADLINE_MS = 1500;
  let healthy: RegionalApiStub;
  let hanging: RegionalApiStub;
  let erroring: RegionalApiStub;
  let refused: string;

  beforeAll(async () => {
    [healthy, hanging, erroring] = await Promise.all([
      startRegionalApiStub({ region: 'us-east-1', credentials: KNOWN, jobs: JOBS['us-east-1'] ?? [] }),
      startRegionalApiStub({ region: 'eu-west-1', credentials: KNOWN, mode: 'hang' }),
      startRegionalApiStub({ region: 'ap-southeast-2', credentials: KNOWN, mode: 'error' }),
    ]);
    refused = await refusedUrl();
  });
  afterAll(async () => {
    await Promise.all([healthy, hanging, erroring].map((s) => s.close()));
  });

  const aggregator = () =>
    createHandler({
      discovery: new StaticDiscovery(
        parseRegionalApis(
          JSON.stringify({
            'us-east-1': healthy.url,
            'eu-west-1': hanging.url,
            'ap-southeast-2': erroring.url,
            'sa-east-1': refused,
          }),
        ),
      ),
      credentials: CREDENTIALS,
      settings: { budgetMs: DEADLINE_MS },
    });

  test.each([
    ['GET', '/api/v1/global/health', null],
    ['GET', '/api/v1/global/jobs', null],
    ['GET', '/api/v1/global/status', null],
    ['DELETE', '/api/v1/global/jobs', '{"dry_run":true}'],
  ])(
    '%s %s answers 200 in time with every region present and the failures marked',
    async (method, path, requestBody) => {
      const started = performance.now();
      const result = await aggregator()(apiEvent(method, path, { body: requestBody }));
      const elapsed = performance.now() - started;
      expect(result.statusCode).toBe(200);
      const body = bodyOf(result);
      expect(Object.keys(body.regions)).toEqual(['ap-southeast-2', 'eu-west-1', 'sa-east-1', 'us-east-1']);
      expect(body.failed_regions).toEqual(['ap-southeast-2', 'eu-west-1', 'sa-east-1']);

      expect(body.regions['us-east-1']).toMatchObject({ status: 200, ok: true, error: null });
      // The hanging region was given (most of) the budget and then cut off.
      const hung = body.regions['eu-west-1'];
      expect(hung).toMatchObject({ status: null, ok: false, body: null });
      expect(hung.error).toMatch(/^timeout after \d+ ms$/);
      const granted = Number(/(\d+)/.exec(hung.error)?.[1]);
      expect(granted).toBeGreaterThan(0);
      expect(granted).toBeLessThanOrEqual(DEADLINE_MS);
      expect(hung.duration_ms).toBeGreaterThanOrEqual(granted - 5);
      expect(elapsed).toBeGreaterThanOrEqual(granted - 5);
      // A 500 keeps its status and body; a refused connection has no status.
      expect(body.regions['ap-southeast-2']).toMatchObject({
        status: 500,
        ok: false,
        body: { message: 'Internal server error' },
        error: 'HTTP 500: Internal server error',
      });
      expect(body.regions['sa-east-1']).toMatchObject({
        status: null,
        ok: false,
        body: null,
        error: 'request failed: ECONNREFUSED',
      });
    },
  );

  test('merged views count only answering regions', async () => {
    const handler = aggregator();
    const [health, jobs, status] = (
      await Promise.all(
        ['/api/v1/global/health', '/api/v1/global/jobs', '/api/v1/global/status'].map((path) =>
          handler(apiEvent('GET', path)),
        ),
      )
    ).map(bodyOf);
    expect(health.status).toBe('degraded');
    expect(health.summary).toEqual({ total: 4, healthy: 1, unhealthy: 0, unreachable: 3 });
    expect(jobs.total).toBe(3);
    expect(jobs.jobs.every((j: Json) => j.region === 'us-east-1')).toBe(true);
    expect(status.allowed_namespaces['eu-west-1']).toBeNull();
  });

  test('a per-region cap tighter than the budget applies', async () => {
    const handler = createHandler({
      discovery: new StaticDiscovery({ apis: [{ region: 'eu-west-1', url: hanging.url }], problems: [] }),
      credentials: CREDENTIALS,
      settings: { budgetMs: 20_000, regionTimeoutMs: 300 },
    });
    const body = bodyOf(await handler(apiEvent('GET', '/api/v1/global/health')));
    const error: string = body.regions['eu-west-1'].error;
    expect(Number(/(\d+)/.exec(error)?.[1])).toBeLessThanOrEqual(300);
  });

  test("Lambda's remaining time bounds the deadline too", async () => {
    const handler = createHandler({
      discovery: new StaticDiscovery({ apis: [{ region: 'eu-west-1', url: hanging.url }], problems: [] }),
      credentials: CREDENTIALS,
      settings: { budgetMs: 20_000 },
    });
    const body = bodyOf(
      await handler(apiEvent('GET', '/api/v1/global/health'), { getRemainingTimeInMillis: () => 1400 }),
    );
    expect(Number(/(\d+)/.exec(body.regions['eu-west-1'].error)?.[1])).toBeLessThanOrEqual(400);
  });
});

describe('regional API discovery', () => {
  let stubs: RegionalApiStub[];
  const ssm = mockClient(SSMClient);
  const saved = { ...process.env };

  beforeAll(async () => {
    stubs = await Promise.all(
      ['us-east-1', 'eu-west-1'].map((region) =>
        startRegionalApiStub({ region, credentials: KNOWN, jobs: JOBS[region] ?? [] }),
      ),
    );
  });
  afterAll(async () => {
    ssm.restore();
    process.env = saved;
    await Promise.all(stubs.map((s) => s.close()));
  });

  test('from SSM parameters /<project>/regional-api/<region> (paginated, cached)', async () => {
    ssm.reset();
    ssm
      .on(GetParametersByPathCommand)
      .resolves({
        Parameters: [{ Name: '/gco/regional-api/us-east-1', Value: `${stubs[0]!.url}/`, Type: 'String' }],
        NextToken: 'page-2',
      })
      .on(GetParametersByPathCommand, { Path: '/gco/regional-api/', NextToken: 'page-2' })
      .resolves({
        Parameters: [{ Name: '/gco/regional-api/eu-west-1', Value: stubs[1]!.url, Type: 'String' }],
      });
    const handler = createHandler({
      discovery: new SsmDiscovery({
        client: new SSMClient({ region: 'us-east-2' }),
        path: '/gco/regional-api',
        ttlMs: 60_000,
      }),
      credentials: CREDENTIALS,
      settings: { budgetMs: 5000 },
    });
    const first = bodyOf(
      await handler(apiEvent('GET', '/api/v1/global/jobs', withQuery({ sort: 'name:asc' }))),
    );
    expect(Object.keys(first.regions)).toEqual(['eu-west-1', 'us-east-1']);
    expect(first.jobs.map((j: Json) => j.name)).toEqual(['alpha', 'batch-c', 'eval-b', 'train-a', 'zeta']);
    const second = bodyOf(await handler(apiEvent('GET', '/api/v1/global/health')));
    expect(second.status).toBe('healthy');
    expect(ssm.commandCalls(GetParametersByPathCommand)).toHaveLength(2); // one discovery, two pages
  });

  test('SSM failure without a cached list: 503 {"message"}; with REGIONS: each region reported', async () => {
    ssm.reset();
    ssm.on(GetParametersByPathCommand).rejects(new Error('AccessDeniedException'));
    const discovery = () =>
      new SsmDiscovery({
        client: new SSMClient({ region: 'us-east-2' }),
        path: '/gco/regional-api',
        ttlMs: 60_000,
      });
    const bare = await createHandler({ discovery: discovery(), credentials: CREDENTIALS })(
      apiEvent('GET', '/api/v1/global/health'),
    );
    expect(bare.statusCode).toBe(503);
    expect(typeof bodyOf(bare).message).toBe('string');
    const known = await createHandler({
      discovery: discovery(),
      credentials: CREDENTIALS,
      settings: { expectedRegions: ['eu-west-1', 'us-east-1'] },
    })(apiEvent('GET', '/api/v1/global/health'));
    // Every listed region failed: a 502 whose body still names each one.
    expect(known.statusCode).toBe(502);
    const body = bodyOf(known);
    expect(body.regions['us-east-1'].error).toBe('regional API discovery failed');
    expect(body.failed_regions).toEqual(['eu-west-1', 'us-east-1']);
  });

  test('from REGIONAL_APIS through the exported handler (role credentials from the default chain)', async () => {
    process.env.REGIONAL_APIS = JSON.stringify({ 'us-east-1': stubs[0]!.url, 'eu-west-1': stubs[1]!.url });
    process.env.REGIONS = 'us-east-1,eu-west-1,us-west-2';
    process.env.AGGREGATOR_BUDGET_MS = '5000';
    // defaultProvider() reads these first, as it would read the execution role's variables in Lambda.
    process.env.AWS_ACCESS_KEY_ID = CREDENTIALS.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = CREDENTIALS.secretAccessKey;
    delete process.env.AWS_SESSION_TOKEN;
    delete process.env.AWS_PROFILE;
    const context = lambdaContext({ getRemainingTimeInMillis: () => 29_000, awsRequestId: 'req-1' });
    const body = bodyOf(await envHandler(apiEvent('GET', '/api/v1/global/status'), context));
    expect(body.regions['us-east-1']).toMatchObject({ status: 200, ok: true });
    expect(body.regions['eu-west-1']).toMatchObject({ status: 200, ok: true });
    expect(body.regions['us-west-2'].error).toBe('regional API not discovered');
    expect(stubs[0]!.rejected).toEqual([]);
  });
});

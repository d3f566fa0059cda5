/**
 * Inputs the edge must answer as the spec says, each through the local platform with SigV4 (issue 13's
 * edge half): an over-large body reaches the service's 413 through every hop, an aggregate where every
 * region refuses is not a 200, over-long URLs get a small JSON 414/431 from the API Gateway emulator,
 * an analytics admin body that is not UTF-8 is a 400 that stores nothing, HEAD reaches the model server,
 * and a game client's lower-case `{"events": [...]}` batch lands in the stream once per event.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { startLocalPlatform, type LocalPlatform } from '../../local/platform.js';
import { rawRequest } from '../integration/local/support.js';
import { expectRefusal } from '../fuzz/edge/support/error-answers.js';
import { analyticsStreamRecords } from './support/analytics-stream.js';
import { edgeClient, type EdgeClient } from './support/edge.js';

// Starts the whole local platform (services, emulators, esbuild bundles) in this process: tests and
// hooks get an explicit budget here; the hook that starts it names its own.
jest.setTimeout(30_000);

let platform: LocalPlatform;
let edge: EdgeClient;
let region: string;

beforeAll(async () => {
  platform = await startLocalPlatform({ context: { analytics_api: { authorizer_cache_ttl_seconds: 0 } } });
  edge = edgeClient(platform);
  region = platform.endpoints.region;
}, 30_000);
afterAll(() => platform?.close());

const JSON_HEADERS = { 'content-type': 'application/json' };

describe('7: a body over 1 MiB through the regional API', () => {
  test("the service's 413 JSON passes through every hop (no HTML 502 from the ALB)", async () => {
    const reply = await edge.regional(region, {
      method: 'POST',
      path: '/api/v1/manifests',
      headers: JSON_HEADERS,
      body: JSON.stringify({ namespace: 'svc-jobs', manifests: [{ note: 'x'.repeat(1_100_000) }] }),
    });
    expect([reply.status, reply.headers['content-type'], reply.json]).toEqual([
      413,
      'application/json; charset=utf-8',
      { detail: 'Request body too large' },
    ]);
  });
});

describe('8: an aggregate where every region refuses the request', () => {
  test('GET /api/v1/global/jobs?limit=0 is the regions’ common 422, each region’s answer in place', async () => {
    const reply = await edge.global({ path: '/api/v1/global/jobs', query: { limit: '0' } });
    expect(reply.status).toBe(422);
    expect(reply.json.message).toBe(
      'Every region refused the request with HTTP 422; the answer of each is in regions.<region>.body',
    );
    expect(reply.json.failed_regions).toEqual([region]);
    expect(reply.json.regions[region]).toMatchObject({ status: 422, ok: false });
    expect(reply.json.regions[region].body.detail[0].loc).toEqual(['query', 'limit']);
  });

  test('DELETE /api/v1/global/jobs with no body is 422 too', async () => {
    const reply = await edge.global({ method: 'DELETE', path: '/api/v1/global/jobs' });
    expect(reply.status).toBe(422);
    expect(reply.json.regions[region].status).toBe(422);
  });
});

describe('10: over-long URLs, answered by the API Gateway emulator', () => {
  const long = (n: number) => `/api/v1/jobs/svc-jobs/${'a'.repeat(n)}`;

  test.each([
    ['a 1600-character path parameter (method ARN over 1600 bytes)', 1_600],
    ['a ~20 KB URL', 20_000],
    ['a ~70 KB URL', 70_000],
  ])('%s: 414 JSON with no echo, on both APIs', async (_name, n) => {
    expectRefusal(await edge.global({ path: long(n) }), 414, 'Request-URI Too Long');
    expectRefusal(await edge.regional(region, { path: long(n) }), 414, 'Request-URI Too Long');
  });

  test('a request head beyond what the emulator parses: 431 JSON, not a reset', async () => {
    const reply = await rawRequest(`${platform.endpoints.apis.global}${long(300_000)}`);
    expectRefusal(reply, 431, 'Request Header Fields Too Large');
  });
});

describe('11: an analytics admin body that is not UTF-8', () => {
  test('400, and no application is stored', async () => {
    const before = await edge.analytics({ path: '/applications' });
    const reply = await edge.analytics({
      method: 'POST',
      path: '/applications',
      headers: JSON_HEADERS,
      body: Buffer.concat([Buffer.from('{"Name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
    });
    expect([reply.status, reply.json]).toEqual([400, { message: 'Request body is not valid UTF-8' }]);
    const after = await edge.analytics({ path: '/applications' });
    expect(after.json.Count).toBe(before.json.Count);
  });
});

describe('13: HEAD on the inference routes reaches the model server', () => {
  test.each(['/health', '/v1/models', '/v1/models/local-sample-model'])(
    'HEAD /inference/sample-model%s: 200 with the GET’s headers and no body, global and regional',
    async (servingPath) => {
      const path = `/inference/sample-model${servingPath}`;
      for (const reply of [
        await edge.global({ method: 'HEAD', path }),
        await edge.regional(region, { method: 'HEAD', path }),
      ]) {
        expect([reply.status, reply.headers['content-type'], reply.body.length]).toEqual([
          200,
          'application/json',
          0,
        ]);
      }
    },
  );
});

describe('a game client’s batch in the lower-case {"events": [...]} shape', () => {
  // The event types a game client of the existing game-analytics pipeline typically sends.
  const EVENT_TYPES = [
    'login',
    'logout',
    'level_started',
    'level_completed',
    'level_failed',
    'match_start',
    'match_end',
    'iap_transaction',
    'item_acquired',
    'item_used',
    'currency_earned',
    'currency_spent',
    'achievement_unlocked',
    'tutorial_step',
    'session_start',
    'session_end',
    'ad_impression',
    'social_share',
    'error_report',
  ];

  test('each of the 19 event types lands in the stream exactly once, also when the batch is resent', async () => {
    const app = await edge.analytics({
      method: 'POST',
      path: '/applications',
      headers: JSON_HEADERS,
      body: JSON.stringify({ Name: 'pipeline game client' }),
    });
    const applicationId = String(app.json.ApplicationId);
    const key = await edge.analytics({
      method: 'POST',
      path: `/applications/${applicationId}/authorizations`,
      headers: JSON_HEADERS,
      body: JSON.stringify({ Name: 'client' }),
    });
    const now = Math.floor(Date.now() / 1000);
    const events = EVENT_TYPES.map((type, i) => ({
      event_id: randomUUID(),
      event_type: type,
      event_name: type,
      event_timestamp: now - i,
      event_version: '1.0.0',
      app_version: '2.4.1',
      event_data: { platform: 'pc', sequence: i },
    }));
    const send = () =>
      rawRequest(`${platform.endpoints.apis.analytics ?? ''}/applications/${applicationId}/events`, {
        method: 'POST',
        headers: [
          ['content-type', 'application/json'],
          ['Authorization', String(key.json.ApiKeyValue)],
        ],
        body: JSON.stringify({ events }),
      });
    const first = await send();
    expect([first.status, first.json.Total, first.json.FailedRecordCount]).toEqual([200, 19, 0]);
    expect((await send()).json).toEqual(first.json);

    const records = await analyticsStreamRecords(platform, applicationId);
    expect(records).toHaveLength(19);
    for (const event of events) {
      const { received_at: receivedAt, ...record } = records.find((r) => r.event_id === event.event_id) ?? {};
      expect(record).toEqual({
        ...event,
        application_id: applicationId,
        event_timestamp: event.event_timestamp * 1000,
      });
      expect(typeof receivedAt).toBe('number');
    }
  });
});

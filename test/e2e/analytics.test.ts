/**
 * The game-analytics API end to end through its emulator (stage `live`): IAM-signed administration
 * (register an application, create an API key), events sent with the key through the REQUEST authorizer
 * into the Kinesis stream, and — with the authorizer cache TTL at 0 — a disabled key refused on the very
 * next request.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, jest, test } from '@jest/globals';
import { startLocalPlatform, type LocalPlatform } from '../../local/platform.js';
import { rawRequest } from '../integration/local/support.js';
import { analyticsStreamRecords } from './support/analytics-stream.js';
import { edgeClient, type EdgeClient } from './support/edge.js';

// Starts the whole local platform (services, emulators, esbuild bundles) in this process: tests and
// hooks get an explicit budget here; the hook that starts it names its own.
jest.setTimeout(30_000);

let platform: LocalPlatform;
let edge: EdgeClient;

beforeAll(async () => {
  platform = await startLocalPlatform({ context: { analytics_api: { authorizer_cache_ttl_seconds: 0 } } });
  edge = edgeClient(platform);
}, 30_000);
afterAll(() => platform?.close());

const JSON_HEADERS = { 'content-type': 'application/json' };

function gameEvent(name: string) {
  return {
    event_id: randomUUID(),
    event_type: 'gameplay',
    event_name: name,
    event_timestamp: Date.now(),
    event_data: { level: 3 },
  };
}

/** Sends a batch with the API key in Authorization — no SigV4: the authorizer decides. */
function sendEvents(applicationId: string, key: string | undefined, events: unknown[]) {
  return rawRequest(`${platform.endpoints.apis.analytics ?? ''}/applications/${applicationId}/events`, {
    method: 'POST',
    headers: [
      ['content-type', 'application/json'],
      ...(key === undefined ? [] : ([['Authorization', key]] as [string, string][])),
    ],
    body: JSON.stringify({ Events: events }),
  });
}

test('register an application, create a key, send events, disable the key and be refused', async () => {
  const created = await edge.analytics({
    method: 'POST',
    path: '/applications',
    headers: JSON_HEADERS,
    body: JSON.stringify({ Name: 'e2e-game', Description: 'through the edge' }),
  });
  expect(created.status).toBe(200);
  const applicationId = String(created.json.ApplicationId);
  expect(created.json.ApplicationName).toBe('e2e-game');

  const key = await edge.analytics({
    method: 'POST',
    path: `/applications/${applicationId}/authorizations`,
    headers: JSON_HEADERS,
    body: JSON.stringify({ Name: 'e2e-key' }),
  });
  expect(key.status).toBe(200);
  const apiKey = String(key.json.ApiKeyValue);
  const apiKeyId = String(key.json.ApiKeyId);
  expect(key.json.Enabled).toBe(true);

  const batch = [gameEvent('level_started'), gameEvent('level_completed')];
  const sent = await sendEvents(applicationId, apiKey, batch);
  expect(sent.status).toBe(200);
  expect(sent.json).toMatchObject({ Total: 2, FailedRecordCount: 0 });
  const records = await analyticsStreamRecords(platform);
  expect(records.map((r) => r.event_id)).toEqual(expect.arrayContaining(batch.map((e) => e.event_id)));
  expect(records.find((r) => r.event_id === batch[0]?.event_id)).toMatchObject({
    application_id: applicationId,
    event_name: 'level_started',
  });

  // Administration needs SigV4; the events route does not accept it in place of a key.
  expect((await rawRequest(`${platform.endpoints.apis.analytics ?? ''}/applications`)).status).toBe(403);
  expect((await sendEvents(applicationId, undefined, batch)).status).toBe(401);

  const disabled = await edge.analytics({
    method: 'PUT',
    path: `/applications/${applicationId}/authorizations/${apiKeyId}`,
    headers: JSON_HEADERS,
    body: JSON.stringify({ Enabled: false }),
  });
  expect([disabled.status, disabled.json]).toEqual([200, { Enabled: false }]);
  // TTL 0: the authorizer runs again and refuses the disabled key at once, with an explicit Deny
  // (lambda/analytics-authorizer): the key is known but may not send, so API Gateway answers 403.
  const refused = await sendEvents(applicationId, apiKey, [gameEvent('after_disable')]);
  expect([refused.status, refused.json]).toEqual([
    403,
    { Message: 'User is not authorized to access this resource with an explicit deny' },
  ]);
  // Enabled again, accepted again on the next request.
  await edge.analytics({
    method: 'PUT',
    path: `/applications/${applicationId}/authorizations/${apiKeyId}`,
    headers: JSON_HEADERS,
    body: JSON.stringify({ Enabled: true }),
  });
  expect((await sendEvents(applicationId, apiKey, [gameEvent('after_enable')])).status).toBe(200);
});

test('warehouse setup answers that no warehouse is configured (no Redshift locally)', async () => {
  for (const path of ['/redshift/setup', '/applications/redshift/setup']) {
    const reply = await edge.analytics({ method: 'POST', path });
    expect(reply.status).toBe(400);
    expect(reply.json.message).toMatch(/warehouse is not configured/);
  }
});

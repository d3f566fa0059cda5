/**
 * The analytics API's key boundary as `npm start` runs it (local/analytics.ts: the API Gateway emulator
 * with the authorizer cache at its deployed 300 s, the real REQUEST authorizer and events handler,
 * dynalite, kinesalite), probed over real HTTP:
 * - two Authorization values are refused (401) whatever their order, and the refusal is never cached
 *   where it would lock a key's owner out, nor does a string alias a valid key (issue 25, item 1);
 * - an application id in upper or mixed case is the same application (UUIDs of any case, item 2).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { aggregatorRoleName } from '../../../lib/names.js';
import { startLocalAnalytics, type LocalAnalytics } from '../../../local/analytics.js';
import { createLocalCredentials, type LocalCredentials } from '../../../local/credentials.js';
import { LOCAL_ACCOUNT_ID, localConfig } from '../../../local/platform.js';
import { rawRequest, signedRequest, type Reply } from './support.js';

const config = localConfig(['us-east-1']);
let analytics: LocalAnalytics;
let credentials: LocalCredentials;

beforeAll(async () => {
  credentials = createLocalCredentials({
    partition: config.partition.partition,
    accountId: LOCAL_ACCOUNT_ID,
    aggregatorRoleName: aggregatorRoleName(config),
  });
  analytics = await startLocalAnalytics({ config, accountId: LOCAL_ACCOUNT_ID, credentials, logs: 'silent' });
}, 30_000);
afterAll(() => analytics?.close());

const admin = (method: string, path: string, body?: unknown): Promise<Reply> =>
  signedRequest(analytics.api.url, {
    method,
    path,
    headers: { 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    region: config.analyticsApi.region,
    credentials: credentials.developer,
  });

async function appWithKey(name: string): Promise<{ app: string; key: string; keyId: string }> {
  const app = String((await admin('POST', '/applications', { Name: name })).json.ApplicationId);
  const created = (await admin('POST', `/applications/${app}/authorizations`, { Name: `${name} key` })).json;
  return { app, key: String(created.ApiKeyValue), keyId: String(created.ApiKeyId) };
}

const oneEvent = () =>
  JSON.stringify({
    Events: [
      { event_id: randomUUID(), event_type: 'probe', event_name: 'boundary', event_timestamp: Date.now() },
    ],
  });

/** POST …/events with one Authorization line per value, in order. */
const sendEvents = (app: string, values: readonly string[]): Promise<Reply> =>
  rawRequest(`${analytics.api.url}/applications/${app}/events`, {
    method: 'POST',
    headers: [
      ['content-type', 'application/json'],
      ...values.map((v): [string, string] => ['Authorization', v]),
    ],
    body: oneEvent(),
  });

describe('more than one Authorization value', () => {
  test('junk then a valid key: 401; the key alone still works afterwards (nothing locked out)', async () => {
    const { app, key } = await appWithKey('alias probe');
    const refused = await sendEvents(app, ['junk', key]);
    expect([refused.status, refused.json]).toEqual([401, { message: 'Unauthorized' }]);
    const alone = await sendEvents(app, [key]);
    expect([alone.status, alone.json.FailedRecordCount]).toEqual([200, 0]);
    // Cached decisions: the pair is still refused, the key still accepted, the string alone refused.
    expect((await sendEvents(app, ['junk', key])).status).toBe(401);
    expect((await sendEvents(app, [key])).status).toBe(200);
    expect((await sendEvents(app, ['junk'])).status).toBe(401);
  });

  test("someone else's key first: refused, and that key's owner is not locked out", async () => {
    const victim = await appWithKey('victim');
    const attacker = await appWithKey('attacker');
    expect((await sendEvents(attacker.app, [victim.key, attacker.key])).status).toBe(401);
    expect((await sendEvents(victim.app, [victim.key, 'junk'])).status).toBe(401);
    expect((await sendEvents(victim.app, [victim.key])).status).toBe(200);
    expect((await sendEvents(attacker.app, [attacker.key])).status).toBe(200);
  });

  test('a string sent beside a valid key never becomes an alias of it, even after the key is deleted', async () => {
    const { app, key, keyId } = await appWithKey('deleted key');
    expect((await sendEvents(app, ['alias', key])).status).toBe(401);
    expect((await sendEvents(app, [key])).status).toBe(200);
    expect((await admin('DELETE', `/applications/${app}/authorizations/${keyId}`)).status).toBe(200);
    expect((await sendEvents(app, ['alias'])).status).toBe(401);
    expect((await sendEvents(app, ['alias', key])).status).toBe(401);
  });
});

describe('application id case', () => {
  test('upper- and mixed-case ids with a valid key are accepted, before and after the policy is cached', async () => {
    const { app, key } = await appWithKey('case probe');
    const upper = await sendEvents(app.toUpperCase(), [key]);
    expect([upper.status, upper.json.FailedRecordCount]).toEqual([200, 0]);
    expect((await sendEvents(app, [key])).status).toBe(200);
    const mixed = app.replace(/[a-f]/g, (c, i: number) => (i % 2 === 0 ? c.toUpperCase() : c));
    expect((await sendEvents(mixed, [key])).status).toBe(200);
  });

  test("another application's id, in any case, is still refused with 403", async () => {
    const mine = await appWithKey('mine');
    const theirs = await appWithKey('theirs');
    for (const id of [theirs.app, theirs.app.toUpperCase()]) {
      const reply = await sendEvents(id, [mine.key]);
      expect(reply.status).toBe(403);
    }
  });
});

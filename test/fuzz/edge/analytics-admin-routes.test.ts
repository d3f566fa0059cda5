/**
 * Generated requests to every administrative route of the analytics API (and the two warehouse-setup
 * routes), SigV4-signed, through the emulator to the real handlers and dynalite. Each generated body
 * and path id carries its verdict; the property is that the answer is exactly that verdict — a valid
 * request is never refused, every refusal is a small `{"message"}` — that nothing is ever a 5xx, and
 * that a refused write stores nothing (no application, no key, no change of Enabled, nothing deleted).
 * The events route has its own suite (analytics-events-route.test.ts); together they cover every
 * operation of analyticsApiDefinition, which the last test checks.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import fc from 'fast-check';
import {
  analyticsApiDefinition,
  API_KEY_ID_PARAM,
  APPLICATION_ID_PARAM,
} from '../../../contracts/api-routes.js';
import { localConfig } from '../../../local/platform.js';
import type { Reply } from '../../integration/local/support.js';
import {
  enabledBody,
  namedBody,
  pathId,
  pathIdRefusal,
  pathSegmentOf,
  requestBytes,
  type GeneratedRequestBody,
  type PathId,
  type Verdict,
} from './support/analytics-inputs.js';
import { startAnalyticsUnderTest, type AnalyticsUnderTest } from './support/analytics-under-test.js';
import { expectRefusal } from './support/error-answers.js';
import { extraHeaders, queryParameters } from './support/http-inputs.js';
import { fuzzParameters } from './support/settings.js';

/** Runs per operation; each run is one request plus the reads that check what was stored. */
const RUNS = 30;
/** Operations with a suite of their own. */
const EVENTS_OPERATION = 'putEvents';

let at: AnalyticsUnderTest;
/** An application and one of its keys that every run may read (and toggle). */
let app: string;
let key: string;

beforeAll(async () => {
  at = await startAnalyticsUnderTest();
  app = String((await post('/applications', { Name: 'fuzz game' })).json.ApplicationId);
  key = String((await post(`/applications/${app}/authorizations`, { Name: 'fuzz key' })).json.ApiKeyId);
}, 30_000);
afterAll(() => at?.close());

function post(path: string, body: unknown): Promise<Reply> {
  return at.admin({
    method: 'POST',
    path,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

function send(method: string, path: string, body?: GeneratedRequestBody): Promise<Reply> {
  return at.admin({
    method,
    path,
    ...(body !== undefined
      ? { headers: { 'content-type': body.contentType }, body: requestBytes(body) }
      : {}),
  });
}

function expectVerdict(reply: Reply, verdict: Verdict): void {
  expect(reply.status).toBeLessThan(500);
  if (verdict.status === 200) expect(reply.status).toBe(200);
  else expectRefusal(reply, verdict.status, 'message' in verdict ? verdict.message : /./);
}

/**
 * API Gateway's 414 for a path too long for its method ARN comes first, whichever id made it long;
 * then the first id that is not a UUID (in path order); then the body's own verdict; then 404 unless
 * every id names an existing resource.
 */
function verdictOf(ids: [PathId, string][], missing: string, body: Verdict = { status: 200 }): Verdict {
  const tooLongFirst = [...ids].sort(
    ([a], [b]) => Number(b.kind === 'too-long') - Number(a.kind === 'too-long'),
  );
  for (const [id, parameter] of tooLongFirst) {
    const refused = pathIdRefusal(id, parameter);
    if (refused !== undefined) return refused;
  }
  if (body.status !== 200) return body;
  return ids.every(([id]) => id.kind === 'existing') ? body : notFound(missing);
}

/** The verdict on `/applications/{APPLICATION_ID}…`. */
const appVerdict = (id: PathId, body?: Verdict) =>
  verdictOf([[id, APPLICATION_ID_PARAM]], 'Application', body);

/** The verdict on `/applications/{APPLICATION_ID}/authorizations/{API_KEY_ID}`. */
const keyVerdict = (appId: PathId, keyId: PathId, body?: Verdict) =>
  verdictOf(
    [
      [appId, APPLICATION_ID_PARAM],
      [keyId, API_KEY_ID_PARAM],
    ],
    'Authorization',
    body,
  );

const notFound = (what: string): Verdict => ({ status: 404, message: new RegExp(`^${what} .* not found`) });
const MASKED = /^gak_.{4}….{4}$/;

/** operationId → the property run for it (every operation of the API but the events route). */
const PROPERTIES: Record<string, () => Promise<void>> = {
  createApplication: () =>
    fc.assert(
      fc.asyncProperty(namedBody, async (body) => {
        const before = await at.countItems('applications');
        const reply = await send('POST', '/applications', body);
        expectVerdict(reply, body.verdict);
        expect(await at.countItems('applications')).toBe(before + (reply.status === 200 ? 1 : 0));
        if (reply.status !== 200) return;
        const sent = JSON.parse(body.text ?? '') as { Name: string; Description?: string };
        expect(reply.json).toMatchObject({
          ApplicationName: sent.Name.trim(),
          Description: (sent.Description ?? '').trim(),
        });
        expect((await send('GET', `/applications/${String(reply.json.ApplicationId)}`)).json).toEqual(
          reply.json,
        );
      }),
      fuzzParameters(RUNS),
    ),

  listApplications: () =>
    fc.assert(
      fc.asyncProperty(queryParameters, extraHeaders, async (query, headers) => {
        const reply = await at.admin({
          path: '/applications',
          query: Object.fromEntries(query),
          headers: Object.fromEntries(headers),
        });
        expect(reply.status).toBe(200);
        expect(reply.json.Count).toBe(reply.json.Applications.length);
        expect(reply.json.Count).toBe(await at.countItems('applications'));
      }),
      fuzzParameters(RUNS),
    ),

  getApplication: () =>
    fc.assert(
      fc.asyncProperty(pathId, async (id) => {
        const reply = await send('GET', `/applications/${pathSegmentOf(id, app)}`);
        expectVerdict(reply, appVerdict(id));
        if (reply.status === 200) expect(reply.json.ApplicationId).toBe(app);
      }),
      fuzzParameters(RUNS),
    ),

  deleteApplication: () =>
    fc.assert(
      fc.asyncProperty(pathId, async (id) => {
        const doomed = String((await post('/applications', { Name: 'to delete' })).json.ApplicationId);
        await post(`/applications/${doomed}/authorizations`, { Name: 'its key' });
        const [apps, keys] = [await at.countItems('applications'), await at.countItems('authorizations')];
        const reply = await send('DELETE', `/applications/${pathSegmentOf(id, doomed)}`);
        expectVerdict(reply, appVerdict(id));
        const deleted = reply.status === 200 ? 1 : 0;
        if (deleted === 1) expect(reply.json).toBe(`Deleted application ${doomed}`);
        expect(await at.countItems('applications')).toBe(apps - deleted);
        expect(await at.countItems('authorizations')).toBe(keys - deleted);
      }),
      fuzzParameters(RUNS),
    ),

  createAuthorization: () =>
    fc.assert(
      fc.asyncProperty(pathId, namedBody, async (id, body) => {
        const before = await at.countItems('authorizations');
        const reply = await send('POST', `/applications/${pathSegmentOf(id, app)}/authorizations`, body);
        expectVerdict(reply, appVerdict(id, body.verdict));
        expect(await at.countItems('authorizations')).toBe(before + (reply.status === 200 ? 1 : 0));
        if (reply.status === 200) {
          expect(reply.json).toMatchObject({ ApplicationId: app, Enabled: true });
          expect(reply.json.ApiKeyValue).toMatch(/^gak_[A-Za-z0-9_-]{43}$/);
        }
      }),
      fuzzParameters(RUNS),
    ),

  listAuthorizations: () =>
    fc.assert(
      fc.asyncProperty(pathId, async (id) => {
        const reply = await send('GET', `/applications/${pathSegmentOf(id, app)}/authorizations`);
        expectVerdict(reply, appVerdict(id));
        if (reply.status !== 200) return;
        expect(reply.json.Count).toBe(reply.json.Authorizations.length);
        for (const k of reply.json.Authorizations as { ApiKeyValue: string }[])
          expect(k.ApiKeyValue).toMatch(MASKED);
      }),
      fuzzParameters(RUNS),
    ),

  getAuthorization: () =>
    fc.assert(
      fc.asyncProperty(pathId, pathId, async (appId, keyId) => {
        const reply = await send(
          'GET',
          `/applications/${pathSegmentOf(appId, app)}/authorizations/${pathSegmentOf(keyId, key)}`,
        );
        expectVerdict(reply, keyVerdict(appId, keyId));
        if (reply.status === 200)
          expect(reply.json).toMatchObject({ ApiKeyId: key, ApiKeyValue: expect.stringMatching(MASKED) });
      }),
      fuzzParameters(RUNS),
    ),

  updateAuthorization: () =>
    fc.assert(
      fc.asyncProperty(pathId, pathId, enabledBody, async (appId, keyId, body) => {
        const read = async () =>
          (await send('GET', `/applications/${app}/authorizations/${key}`)).json.Enabled as boolean;
        const before = await read();
        const reply = await send(
          'PUT',
          `/applications/${pathSegmentOf(appId, app)}/authorizations/${pathSegmentOf(keyId, key)}`,
          body,
        );
        expectVerdict(reply, keyVerdict(appId, keyId, body.verdict));
        const sent =
          reply.status === 200 ? (JSON.parse(body.text ?? '') as { Enabled: boolean }).Enabled : before;
        if (reply.status === 200) expect(reply.json).toEqual({ Enabled: sent });
        expect(await read()).toBe(sent);
      }),
      fuzzParameters(RUNS),
    ),

  deleteAuthorization: () =>
    fc.assert(
      fc.asyncProperty(pathId, pathId, async (appId, keyId) => {
        const doomed = String(
          (await post(`/applications/${app}/authorizations`, { Name: 'to delete' })).json.ApiKeyId,
        );
        const before = await at.countItems('authorizations');
        const reply = await send(
          'DELETE',
          `/applications/${pathSegmentOf(appId, app)}/authorizations/${pathSegmentOf(keyId, doomed)}`,
        );
        expectVerdict(reply, keyVerdict(appId, keyId));
        expect(await at.countItems('authorizations')).toBe(before - (reply.status === 200 ? 1 : 0));
      }),
      fuzzParameters(RUNS),
    ),
};

// No warehouse locally: whatever the body, the answer is the documented 400 (docs/analytics-api.md).
for (const operationId of ['setupRedshift', 'setupRedshiftUnderApplications']) {
  PROPERTIES[operationId] = () =>
    fc.assert(
      fc.asyncProperty(namedBody, extraHeaders, async (body, headers) => {
        const route = analyticsApiDefinition(localConfig(['us-east-1'])).routes.find(
          (r) => r.operationId === operationId,
        );
        const reply = await at.admin({
          method: 'POST',
          path: route?.path ?? '',
          headers: { ...Object.fromEntries(headers), 'content-type': body.contentType },
          body: requestBytes(body),
        });
        expectRefusal(reply, 400, /^The analytics warehouse is not configured/);
      }),
      fuzzParameters(RUNS),
    );
}

const OPERATIONS = analyticsApiDefinition(localConfig(['us-east-1'])).routes.map((r) => r.operationId);

test.each(OPERATIONS.filter((id) => id !== EVENTS_OPERATION))(
  `%s: the verdict of each generated request, no 5xx, nothing stored by a refusal (${RUNS} runs)`,
  async (operationId) => {
    const property = PROPERTIES[operationId];
    if (property === undefined)
      throw new Error(`no generated-input property for the analytics operation ${operationId}`);
    await property();
  },
  120_000,
);

test('every operation of the analytics API has a property here or in the events suite', () => {
  expect(new Set([...Object.keys(PROPERTIES), EVENTS_OPERATION])).toEqual(new Set(OPERATIONS));
});

/**
 * Generated batches for `POST /applications/{APPLICATION_ID}/events` through the analytics emulator, its
 * REQUEST authorizer (API keys: valid, unknown, missing, another application's) and the real events
 * handler into dynalite and kinesalite. Each batch carries its verdict: a well-formed one (under `Events`
 * or `events`) is a 200 with one result per event, and exactly its valid events reach the stream, once
 * (the same bytes again are a replay that writes nothing); a malformed one, or a refused key, is a small
 * JSON error that writes no stream record and no idempotency record. Nothing is ever a 5xx.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import fc from 'fast-check';
import type { Reply } from '../../integration/local/support.js';
import { eventsBatch, type GeneratedBatch } from './support/analytics-events-inputs.js';
import { startAnalyticsUnderTest, type AnalyticsUnderTest } from './support/analytics-under-test.js';
import { expectRefusal, expectSafeError } from './support/error-answers.js';
import { fuzzParameters } from './support/settings.js';

/** Runs; each run is one batch (up to 12 events) and the reads that check what was stored. */
const RUNS = 80;

let at: AnalyticsUnderTest;
let app: string;
let key: string;
/** A key of another application: the authorizer allows it only there. */
let foreignKey: string;

async function createAppWithKey(name: string): Promise<[string, string]> {
  const post = (path: string, body: unknown) =>
    at.admin({
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const id = String((await post('/applications', { Name: name })).json.ApplicationId);
  const value = String(
    (await post(`/applications/${id}/authorizations`, { Name: `${name} key` })).json.ApiKeyValue,
  );
  return [id, value];
}

beforeAll(async () => {
  at = await startAnalyticsUnderTest();
  [app, key] = await createAppWithKey('fuzz events game');
  [, foreignKey] = await createAppWithKey('another game');
  await at.newRecords();
}, 30_000);
afterAll(() => at?.close());

type Credential = 'own key' | 'Bearer own key' | 'unknown key' | 'no key' | "another application's key";

const credential: fc.Arbitrary<Credential> = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom<Credential>('own key', 'Bearer own key') },
  { weight: 1, arbitrary: fc.constantFrom<Credential>('unknown key', 'no key', "another application's key") },
);

function authorization(c: Credential): string | undefined {
  switch (c) {
    case 'own key':
      return key;
    case 'Bearer own key':
      return `Bearer ${key}`;
    case 'unknown key':
      return `gak_${'A'.repeat(43)}`;
    case 'no key':
      return undefined;
    case "another application's key":
      return foreignKey;
  }
}

/** What API Gateway answers for a refused key (the authorizer's decision; docs/local-platform.md). */
function expectKeyRefusal(reply: Reply, c: Credential): void {
  if (c === "another application's key") {
    expect(reply.status).toBe(403);
    expectSafeError(reply, ['Message']);
  } else {
    expectRefusal(reply, 401, 'Unauthorized');
  }
}

/** Answers already given to a body (by its bytes): the same bytes again are a replay. */
const answered = new Map<string, unknown>();

async function check(batch: GeneratedBatch, c: Credential): Promise<void> {
  const bytes = Buffer.from(batch.text, 'utf8');
  const idempotencyBefore = await at.countItems('idempotency');
  const reply = await at.sendEvents(app, authorization(c), bytes, batch.contentType);
  const written = await at.newRecords();
  expect(reply.status).toBeLessThan(500);

  const keyRefused = c !== 'own key' && c !== 'Bearer own key';
  if (keyRefused || batch.verdict.status !== 200) {
    if (keyRefused) expectKeyRefusal(reply, c);
    else expectRefusal(reply, batch.verdict.status, 'message' in batch.verdict ? batch.verdict.message : /./);
    expect(written).toEqual([]);
    expect(await at.countItems('idempotency')).toBe(idempotencyBefore);
    return;
  }

  expect(reply.status).toBe(200);
  const digest = createHash('sha256').update(bytes).digest('hex');
  const earlier = answered.get(digest);
  if (earlier !== undefined) {
    // A replay: the stored answer, nothing written again.
    expect(reply.json).toEqual(earlier);
    expect(written).toEqual([]);
    return;
  }
  answered.set(digest, reply.json);
  const results = batch.events.map((e) =>
    e.record !== undefined
      ? { Result: 'Ok' }
      : { Result: 'Error', ErrorCode: 'InvalidEvent', ErrorMessage: expect.any(String) },
  );
  expect(reply.json).toEqual({
    Total: batch.events.length,
    FailedRecordCount: batch.events.filter((e) => e.record === undefined).length,
    Events: results,
  });
  // Exactly the valid events, once each, in order, as the records they must become.
  const expected = batch.events.flatMap((e) => (e.record !== undefined ? [e.record] : []));
  expect(written.map((w) => w.partitionKey)).toEqual(expected.map((r) => r.event_id));
  written.forEach((w, i) => {
    const { application_id: applicationId, received_at: receivedAt, ...record } = w.record;
    expect(record).toEqual(expected[i]);
    expect([applicationId, typeof receivedAt]).toEqual([app, 'number']);
  });
}

test(`putEvents: the verdict of each generated batch, its valid events in the stream once, nothing for a refusal (${RUNS} runs)`, async () => {
  await fc.assert(
    fc.asyncProperty(eventsBatch, credential, (batch, c) => check(batch, c)),
    fuzzParameters(RUNS),
  );
}, 120_000);

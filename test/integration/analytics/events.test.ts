/**
 * The events handler against dynalite (applications, idempotency) and kinesalite (the stream): exact
 * per-event answers, every valid event readable back exactly once (also when the batch is sent again),
 * throttled records retried, partial failures completed by a repeat of the batch, and every refusal.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { APPLICATION_ID_PARAM } from '../../../contracts/api-routes.js';
import { batchBody, mixedBatch, validFixture, type Fixture } from './fixtures.js';
import {
  answer,
  CONTEXT,
  createApplication,
  readStream,
  sendEvents,
  startAnalyticsEnv,
  throttlingClient,
  type AnalyticsEnv,
  type StreamEntry,
} from './harness.js';

let env: AnalyticsEnv;
beforeAll(async () => void (env = await startAnalyticsEnv()));
afterAll(() => env.close());

async function recordsOf(target: AnalyticsEnv, app: string): Promise<StreamEntry[]> {
  return (await readStream(target.kinesis.client())).filter((e) => e.record.application_id === app);
}

function expectedResults(fixtures: readonly Fixture[]) {
  return fixtures.map((f) =>
    f.valid
      ? { Result: 'Ok' }
      : { Result: 'Error', ErrorCode: 'InvalidEvent', ErrorMessage: expect.stringMatching(f.message) },
  );
}

/** Each valid fixture appears exactly once, as the record it must become. */
function expectExactlyOnce(
  entries: StreamEntry[],
  fixtures: readonly Fixture[],
  app: string,
  window: [number, number],
) {
  const valid = fixtures.filter((f): f is Extract<Fixture, { valid: true }> => f.valid);
  expect(entries).toHaveLength(valid.length);
  const byId = new Map(entries.map((e) => [e.record.event_id as string, e]));
  expect(byId.size).toBe(valid.length);
  for (const f of valid) {
    const entry = byId.get(f.record.event_id);
    expect(entry?.partitionKey).toBe(f.record.event_id);
    const { received_at: receivedAt, ...rest } = entry?.record ?? {};
    expect(rest).toEqual({ ...f.record, application_id: app });
    expect(receivedAt).toBeGreaterThanOrEqual(window[0]);
    expect(receivedAt).toBeLessThanOrEqual(window[1]);
  }
}

describe('a 500-event batch with invalid events', () => {
  test('answers each event in order and writes every valid event once, also when sent twice', async () => {
    const app = await createApplication(env);
    const fixtures = mixedBatch(500, 12);
    const invalid = fixtures.filter((f) => !f.valid).length;
    expect(invalid).toBe(42);
    const body = batchBody(fixtures);

    const before = Date.now();
    const first = await sendEvents(env, app, body);
    const after = Date.now();
    expect(first.statusCode).toBe(200);
    expect(first.body).toEqual({ Total: 500, FailedRecordCount: invalid, Events: expectedResults(fixtures) });

    const entries = await recordsOf(env, app);
    expectExactlyOnce(entries, fixtures, app, [before, after]);
    // Spread over the shards by event id.
    expect(new Set(entries.map((e) => e.shardId)).size).toBeGreaterThan(1);

    const second = await sendEvents(env, app, body);
    expect(second).toEqual(first);
    expect(await recordsOf(env, app)).toEqual(entries);
    expect(
      env.logger.entries().filter((e) => e.message === 'events batch' && e.fields['application_id'] === app),
    ).toEqual([
      expect.objectContaining({ fields: expect.objectContaining({ rounds_run: 1, replayed: false }) }),
      expect.objectContaining({ fields: expect.objectContaining({ rounds_run: 0, replayed: true }) }),
    ]);
  });

  test('the same events in different bytes are a different batch (the key is the body hash)', async () => {
    const app = await createApplication(env);
    const fixtures = [validFixture(0), validFixture(1)];
    await sendEvents(env, app, batchBody(fixtures));
    await sendEvents(env, app, JSON.stringify({ Events: fixtures.map((f) => f.event) }, null, 2));
    expect(await recordsOf(env, app)).toHaveLength(4);
  });

  test('a base64-encoded body is read as its bytes', async () => {
    const app = await createApplication(env);
    const fixtures = [validFixture(2)];
    const result = await env.events(
      {
        httpMethod: 'POST',
        pathParameters: { [APPLICATION_ID_PARAM]: app },
        body: Buffer.from(batchBody(fixtures)).toString('base64'),
        isBase64Encoded: true,
        requestContext: { authorizer: { applicationId: app } },
      },
      CONTEXT,
    );
    expect(answer(result).body).toEqual({ Total: 1, FailedRecordCount: 0, Events: [{ Result: 'Ok' }] });
  });
});

describe('the game-analytics pipeline shape {"events": [...]}', () => {
  test('the same events under events or Events: identical answers and identical records', async () => {
    const [upper, lower] = [await createApplication(env), await createApplication(env)];
    const fixtures = mixedBatch(40, 5);
    const events = fixtures.map((f) => f.event);
    const before = Date.now();
    const fromUpper = await sendEvents(env, upper, { Events: events });
    const fromLower = await sendEvents(env, lower, { events });
    const after = Date.now();
    expect(fromLower).toEqual(fromUpper);
    expect(fromLower.body).toEqual({
      Total: 40,
      FailedRecordCount: fixtures.filter((f) => !f.valid).length,
      Events: expectedResults(fixtures),
    });
    expectExactlyOnce(await recordsOf(env, upper), fixtures, upper, [before, after]);
    expectExactlyOnce(await recordsOf(env, lower), fixtures, lower, [before, after]);
  });
});

describe('refusals', () => {
  let app: string;
  beforeAll(async () => {
    app = await createApplication(env);
  });
  const one = () => ({ Events: [validFixture(0).event] });

  test.each([
    ['malformed JSON', '{"Events": [', /^Request body is not valid JSON$/],
    ['empty body', '', /^Request body is required/],
    ['not an object', '[1]', /^Request body must be a JSON object$/],
    ['Events missing', '{}', /^Events is required$/],
    ['Events not an array', '{"Events": {}}', /^Events must be an array$/],
    ['no events', '{"Events": []}', /^Events must contain 1 to 500 events$/],
    [
      '501 events',
      JSON.stringify({ Events: Array.from({ length: 501 }, () => ({})) }),
      /^Events must contain 1 to 500/,
    ],
    [
      'unknown top-level field',
      JSON.stringify({ ...one(), Extra: 1 }),
      /^Unknown field "Extra" \(allowed: Events\)$/,
    ],
    [
      'Events and events in one body',
      JSON.stringify({ ...one(), events: one().Events }),
      /^Send the events as Events or as events, not both$/,
    ],
    ['events not an array', '{"events": {}}', /^events must be an array$/],
    ['no events (lower case)', '{"events": []}', /^events must contain 1 to 500 events$/],
    [
      'unknown field beside events',
      JSON.stringify({ events: one().Events, Extra: 1 }),
      /^Unknown field "Extra" \(allowed: events\)$/,
    ],
  ])('%s → 400', async (_name, body, message) => {
    const res = await sendEvents(env, app, body);
    expect(res.statusCode).toBe(400);
    expect(res.body).toEqual({ message: expect.stringMatching(message) });
  });

  test('a body over 5 MiB → 413 before parsing (even when it is not JSON)', async () => {
    const res = await sendEvents(env, app, `{${'x'.repeat(5 * 1024 * 1024)}`);
    expect(res).toMatchObject({
      statusCode: 413,
      body: { message: 'Request body too large (at most 5242880 bytes)' },
    });
  });

  test('an authorizer context for another application → 403', async () => {
    const res = await sendEvents(env, app, one(), { authorizedApp: randomUUID() });
    expect(res).toMatchObject({ statusCode: 403, body: { message: 'Forbidden' } });
  });

  test('an application that does not exist (any more) → 403', async () => {
    const ghost = randomUUID();
    expect(await sendEvents(env, ghost, one())).toMatchObject({
      statusCode: 403,
      body: { message: 'Forbidden' },
    });
  });

  test('a path id that is not a UUID → 400', async () => {
    const res = await sendEvents(env, 'nope', one());
    expect(res).toMatchObject({
      statusCode: 400,
      body: { message: 'Path parameter APPLICATION_ID must be a UUID' },
    });
  });
});

describe('throttling', () => {
  test('throttled records are retried with backoff until written; nothing is written twice', async () => {
    const attempts = new Map<string, number>();
    let wrapped: ReturnType<typeof throttlingClient> | undefined;
    const local = await startAnalyticsEnv({
      kinesisClient: (k) => {
        // Every third record is refused on its first two attempts.
        wrapped = throttlingClient(k, (pk) => {
          const n = (attempts.get(pk) ?? 0) + 1;
          attempts.set(pk, n);
          return parseInt(pk.slice(-2), 16) % 3 === 0 && n <= 2;
        });
        return wrapped.client;
      },
    });
    try {
      const app = await createApplication(local);
      const fixtures = Array.from({ length: 300 }, (_, i) => validFixture(i));
      const before = Date.now();
      const res = await sendEvents(local, app, batchBody(fixtures));
      expect(res.body).toEqual({
        Total: 300,
        FailedRecordCount: 0,
        Events: fixtures.map(() => ({ Result: 'Ok' })),
      });
      const calls = wrapped?.calls ?? [];
      expect(calls.length).toBe(3);
      expect(calls[0]).toHaveLength(300);
      // The retries carried exactly the throttled records.
      const throttled = fixtures
        .map((f) => (f.valid ? f.record.event_id : ''))
        .filter((id) => parseInt(id.slice(-2), 16) % 3 === 0);
      expect([...(calls[1] ?? [])].sort()).toEqual([...throttled].sort());
      expect([...(calls[2] ?? [])].sort()).toEqual([...throttled].sort());
      expectExactlyOnce(await recordsOf(local, app), fixtures, app, [before, Date.now()]);
      expect(local.logger.entries().some((e) => e.message === 'stream writes retried')).toBe(true);
    } finally {
      await local.close();
    }
  });

  test('records still throttled at the deadline answer ThroughputExceeded; sending the batch again resends only them', async () => {
    let throttling = true;
    let wrapped: ReturnType<typeof throttlingClient> | undefined;
    const local = await startAnalyticsEnv({
      kinesisClient: (k) => {
        wrapped = throttlingClient(k, (pk) => throttling && pk.endsWith('0'));
        return wrapped.client;
      },
    });
    try {
      const app = await createApplication(local);
      const fixtures = mixedBatch(200, 25);
      const body = batchBody(fixtures);
      const hot = new Set(
        fixtures.flatMap((f) => (f.valid && f.record.event_id.endsWith('0') ? [f.record.event_id] : [])),
      );
      expect(hot.size).toBeGreaterThan(0);
      const isHot = (f: Fixture) => f.valid && hot.has(f.record.event_id);
      // 2.6 s left in the function: writes must stop 2 s before, so there is time for ~0.6 s of retries.
      const short = { ...CONTEXT, getRemainingTimeInMillis: () => 2_600 };

      const started = Date.now();
      const first = await sendEvents(local, app, body, { context: short });
      expect(Date.now() - started).toBeLessThan(1_500);
      expect(first.body.Events).toEqual(
        fixtures.map((f, i) =>
          isHot(f) ? { Result: 'Error', ErrorCode: 'ThroughputExceeded' } : expectedResults(fixtures)[i],
        ),
      );
      expect(first.body.FailedRecordCount).toBe(hot.size + 8);
      expect(await recordsOf(local, app)).toHaveLength(fixtures.filter((f) => f.valid).length - hot.size);

      // The shard cools down; the client sends the same batch again.
      throttling = false;
      const callsBefore = wrapped?.calls.length ?? 0;
      const second = await sendEvents(local, app, body);
      expect(second.body).toEqual({ Total: 200, FailedRecordCount: 8, Events: expectedResults(fixtures) });
      const resent = (wrapped?.calls ?? []).slice(callsBefore).flat();
      expect(resent.sort()).toEqual([...hot].sort());
      expectExactlyOnce(await recordsOf(local, app), fixtures, app, [started, Date.now()]);

      // And once more: the stored answer, nothing written.
      const callsAfter = wrapped?.calls.length ?? 0;
      expect(await sendEvents(local, app, body)).toEqual(second);
      expect(wrapped?.calls.length).toBe(callsAfter);
      expect(await recordsOf(local, app)).toHaveLength(fixtures.filter((f) => f.valid).length);
    } finally {
      await local.close();
    }
  });

  test('the same batch arriving while it is being written → 409, and it is written once', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered: () => void = () => undefined;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const local = await startAnalyticsEnv({
      kinesisClient: (k) => {
        const client = k.client();
        client.middlewareStack.add(
          (next) => async (args) => {
            entered();
            await gate;
            return next(args);
          },
          { step: 'initialize', name: 'holdPutRecords' },
        );
        return client;
      },
    });
    try {
      const app = await createApplication(local);
      const fixtures = [validFixture(0), validFixture(1)];
      const body = batchBody(fixtures);
      const first = sendEvents(local, app, body);
      await inside;
      const concurrent = await sendEvents(local, app, body);
      expect(concurrent).toMatchObject({ statusCode: 409, headers: { 'retry-after': ['1'] } });
      expect(concurrent.body.message).toMatch(/identical batch is being processed/);
      release();
      expect((await first).body.FailedRecordCount).toBe(0);
      expect(await recordsOf(local, app)).toHaveLength(2);
    } finally {
      release();
      await local.close();
    }
  });
});

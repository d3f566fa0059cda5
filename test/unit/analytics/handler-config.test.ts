/**
 * Configuration of the analytics handlers (docs/analytics-api.md, "Environment"): every problem named at
 * once; the lazily built Lambda entry points answer 500 JSON (authorizer: a non-Unauthorized error).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import * as admin from '../../../lambda/analytics-admin/index.js';
import * as authorizer from '../../../lambda/analytics-authorizer/index.js';
import * as events from '../../../lambda/analytics-events/index.js';
import { backoffDelayMs } from '../../../lambda/shared/analytics/backoff.js';
import { chunkRecords } from '../../../lambda/analytics-events/kinesis-writer.js';

describe('createHandlerFromEnv', () => {
  test('admin needs both table names', () => {
    expect(() => admin.createHandlerFromEnv({})).toThrow(
      /APPLICATIONS_TABLE is required[\s\S]*AUTHORIZATIONS_TABLE is required/,
    );
  });

  test('events needs its tables and stream; the idempotency window is 60 s – 7 days', () => {
    expect(() => events.createHandlerFromEnv({})).toThrow(
      /APPLICATIONS_TABLE is required[\s\S]*IDEMPOTENCY_TABLE is required[\s\S]*EVENTS_STREAM_NAME is required/,
    );
    const base = { APPLICATIONS_TABLE: 'a', IDEMPOTENCY_TABLE: 'i', EVENTS_STREAM_NAME: 's' };
    expect(() => events.createHandlerFromEnv({ ...base, IDEMPOTENCY_TTL_SECONDS: '30' })).toThrow(
      /IDEMPOTENCY_TTL_SECONDS must be an integer from 60 to 604800/,
    );
    expect(() => events.createHandlerFromEnv({ ...base, EVENTS_STREAM_NAME: 'bad name!' })).toThrow(
      /EVENTS_STREAM_NAME must be a Kinesis stream name/,
    );
    expect(typeof events.createHandlerFromEnv({ ...base, IDEMPOTENCY_TTL_SECONDS: '86400' })).toBe(
      'function',
    );
  });
});

describe('Lambda entry points without configuration', () => {
  const saved = { ...process.env };
  beforeAll(() => {
    for (const v of [
      'APPLICATIONS_TABLE',
      'AUTHORIZATIONS_TABLE',
      'IDEMPOTENCY_TABLE',
      'EVENTS_STREAM_NAME',
    ]) {
      delete process.env[v];
    }
    process.env['POWERTOOLS_LOG_LEVEL'] = 'SILENT';
  });
  afterAll(() => {
    process.env = saved;
  });

  test('admin and events answer 500 {"message":"Internal server error"}', async () => {
    const a = await admin.handler(
      {
        httpMethod: 'GET',
        resource: '/applications',
        path: '/applications',
        pathParameters: null,
        body: null,
        isBase64Encoded: false,
      },
      { awsRequestId: 'x' },
    );
    expect(a).toMatchObject({ statusCode: 500, body: '{"message":"Internal server error"}' });
    const e = await events.handler(
      { httpMethod: 'POST', pathParameters: null, body: null, isBase64Encoded: false, requestContext: {} },
      { awsRequestId: 'x' },
    );
    expect(e).toMatchObject({ statusCode: 500, body: '{"message":"Internal server error"}' });
  });

  test('the authorizer throws an error API Gateway turns into 500, never a cached 401', async () => {
    const error = await authorizer
      .handler({ methodArn: 'arn', headers: {} }, { awsRequestId: 'x' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(authorizer.AuthorizerUnavailableError);
    expect((error as Error).message).not.toBe('Unauthorized');
  });
});

describe('helpers', () => {
  test('backoff: full jitter within min(cap, base·2^n)', () => {
    const policy = { baseMs: 50, capMs: 2_000 };
    expect(backoffDelayMs(1, policy, () => 0)).toBe(0);
    expect(backoffDelayMs(1, policy, () => 0.999)).toBe(99);
    expect(backoffDelayMs(3, policy, () => 0.5)).toBe(200);
    expect(backoffDelayMs(10, policy, () => 0.999)).toBe(1_998);
  });

  test('chunking keeps record order and both limits', () => {
    const rec = (index: number, bytes: number) => ({ index, partitionKey: 'p', data: new Uint8Array(bytes) });
    expect(
      chunkRecords([rec(0, 10), rec(1, 10), rec(2, 10)], 2, 1_000).map((c) => c.map((r) => r.index)),
    ).toEqual([[0, 1], [2]]);
    expect(
      chunkRecords([rec(0, 600), rec(1, 398), rec(2, 1)], 500, 1_000).map((c) => c.map((r) => r.index)),
    ).toEqual([[0, 1], [2]]);
    expect(chunkRecords([], 500, 1_000)).toEqual([]);
  });
});

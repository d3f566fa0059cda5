/**
 * The events handler's application check (lambda/analytics-events/application-cache.ts) against
 * dynalite: an application that exists is remembered for the TTL, so a deleted application's batches are
 * refused no later than the TTL after the delete (the authorizer cache's own window); an unknown
 * application is read every time; with a TTL of 0 every batch reads the table.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ANALYTICS_TABLES } from '../../../contracts/analytics-resources.js';
import { tableName } from '../../../contracts/tables.js';
import * as events from '../../../lambda/analytics-events/index.js';
import { ApplicationExistenceCache } from '../../../lambda/analytics-events/application-cache.js';
import { ApplicationStore } from '../../../lambda/shared/analytics/applications-store.js';
import { batchBody, validFixture } from './fixtures.js';
import {
  answer,
  callAdmin,
  CONTEXT,
  createApplication,
  PROJECT,
  RESOURCES,
  startAnalyticsEnv,
  type AnalyticsEnv,
  unreachableDynamo,
} from './harness.js';
import { APPLICATION_ID_PARAM } from '../../../contracts/api-routes.js';

let env: AnalyticsEnv;
beforeAll(async () => void (env = await startAnalyticsEnv()));
afterAll(() => env.close());

/** A store that counts its reads: the cache's only way to know what the table says. */
function countingStore(): { store: ApplicationStore; reads: () => number } {
  const real = new ApplicationStore(
    DynamoDBDocumentClient.from(env.dynamo.client()),
    tableName(PROJECT, ANALYTICS_TABLES.applications),
  );
  let reads = 0;
  const store = Object.create(real) as ApplicationStore;
  store.exists = async (id: string) => {
    reads++;
    return real.exists(id);
  };
  return { store, reads: () => reads };
}

describe('ApplicationExistenceCache', () => {
  test('remembers an existing application until the TTL has passed, then reads again', async () => {
    const app = await createApplication(env);
    const { store, reads } = countingStore();
    let now = 1_000_000;
    const cache = new ApplicationExistenceCache(store, 300_000, () => now);
    expect(await cache.exists(app)).toBe(true);
    expect(await cache.exists(app)).toBe(true);
    expect(reads()).toBe(1);
    expect((await callAdmin(env, 'DELETE', RESOURCES.application, { app })).statusCode).toBe(200);
    now += 299_999;
    expect(await cache.exists(app)).toBe(true);
    expect(reads()).toBe(1);
    now += 1;
    expect(await cache.exists(app)).toBe(false);
    expect(reads()).toBe(2);
    // Gone is not remembered: every later check reads again.
    expect(await cache.exists(app)).toBe(false);
    expect(reads()).toBe(3);
  });

  test('an unknown application is read every time', async () => {
    const { store, reads } = countingStore();
    const cache = new ApplicationExistenceCache(store, 300_000);
    const ghost = randomUUID();
    expect(await cache.exists(ghost)).toBe(false);
    expect(await cache.exists(ghost)).toBe(false);
    expect(reads()).toBe(2);
  });

  test('TTL 0 reads every time', async () => {
    const app = await createApplication(env);
    const { store, reads } = countingStore();
    const cache = new ApplicationExistenceCache(store, 0);
    expect(await cache.exists(app)).toBe(true);
    expect(await cache.exists(app)).toBe(true);
    expect(reads()).toBe(2);
  });

  test('holds at most maxEntries applications, dropping the oldest', async () => {
    const apps = [await createApplication(env), await createApplication(env), await createApplication(env)];
    const { store, reads } = countingStore();
    const cache = new ApplicationExistenceCache(store, 300_000, Date.now, 2);
    for (const app of apps) expect(await cache.exists(app)).toBe(true);
    expect(reads()).toBe(3);
    // apps[0] was dropped for apps[2]; apps[1] and apps[2] are still known.
    await cache.exists(apps[1] ?? '');
    await cache.exists(apps[2] ?? '');
    expect(reads()).toBe(3);
    await cache.exists(apps[0] ?? '');
    expect(reads()).toBe(4);
  });

  test('a failed read reaches the caller and is not remembered', async () => {
    const unreachable = new ApplicationStore(
      DynamoDBDocumentClient.from(unreachableDynamo()),
      tableName(PROJECT, ANALYTICS_TABLES.applications),
    );
    const cache = new ApplicationExistenceCache(unreachable, 300_000);
    const app = await createApplication(env);
    await expect(cache.exists(app)).rejects.toThrow();
    await expect(cache.exists(app)).rejects.toThrow();
  });
});

describe('the events handler', () => {
  const send = (handler: events.EventsHandler, app: string) =>
    handler(
      {
        httpMethod: 'POST',
        pathParameters: { [APPLICATION_ID_PARAM]: app },
        body: batchBody([validFixture(Math.floor(Math.random() * 1000))]),
        isBase64Encoded: false,
        requestContext: { requestId: 'req', authorizer: { applicationId: app, apiKeyId: 'key-id' } },
      },
      CONTEXT,
    ).then(answer);

  test('within the TTL a deleted application is still accepted (as under the cached Allow), with TTL 0 refused at once', async () => {
    const cached = events.createHandlerFromEnv(env.env, {
      dynamodb: env.dynamo.client(),
      kinesis: env.kinesis.client(),
      logger: env.logger,
    });
    const uncached = events.createHandlerFromEnv(env.env, {
      dynamodb: env.dynamo.client(),
      kinesis: env.kinesis.client(),
      logger: env.logger,
      applicationCacheTtlMs: 0,
    });
    const app = await createApplication(env);
    expect((await send(cached, app)).statusCode).toBe(200);
    expect((await send(uncached, app)).statusCode).toBe(200);
    expect((await callAdmin(env, 'DELETE', RESOURCES.application, { app })).statusCode).toBe(200);
    expect((await send(cached, app)).statusCode).toBe(200);
    expect(await send(uncached, app)).toMatchObject({ statusCode: 403, body: { message: 'Forbidden' } });
  });
});

/**
 * The administrative routes against dynalite: every operation in the seed's shapes, and every error
 * path (400 naming the field, 404, 405, 413) as a JSON `{"message"}`.
 */
import { randomUUID } from 'node:crypto';
import { QueryCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { loadConfig } from '../../../lib/config.js';
import { analyticsApiDefinition } from '../../../contracts/api-routes.js';
import { ANALYTICS_TABLES } from '../../../contracts/analytics-resources.js';
import { tableName } from '../../../contracts/tables.js';
import { ADMIN_ROUTES } from '../../../lambda/analytics-admin/index.js';
import { hashApiKey } from '../../../lambda/shared/analytics/api-keys.js';
import {
  authorize,
  callAdmin,
  createApplication,
  createKey,
  eventsMethodArn,
  laggingIndexClient,
  PROJECT,
  RESOURCES,
  partialBatchWriteClient,
  seedItems,
  startAnalyticsEnv,
  type AnalyticsEnv,
} from './harness.js';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let env: AnalyticsEnv;
beforeAll(async () => void (env = await startAnalyticsEnv()));
afterAll(() => env.close());

test('the handler serves every admin route of analyticsApiDefinition, and nothing else', () => {
  const routes = analyticsApiDefinition(loadConfig({})).routes.filter(
    (r) => r.integration.type === 'lambda' && r.integration.handler === 'analytics-admin',
  );
  const served = Object.entries(ADMIN_ROUTES).flatMap(([path, methods]) =>
    Object.keys(methods).map((m) => `${m} ${path}`),
  );
  expect(served.sort()).toEqual(routes.map((r) => `${r.method} ${r.path}`).sort());
});

describe('applications', () => {
  test('create answers the Application; get and list show the same; timestamps are ISO 8601 UTC', async () => {
    const created = await callAdmin(
      env,
      'POST',
      RESOURCES.applications,
      {},
      { Name: '  Space Race  ', Description: 'arcade' },
    );
    expect(created.statusCode).toBe(200);
    expect(Object.keys(created.body).sort()).toEqual(
      ['ApplicationId', 'ApplicationName', 'CreatedAt', 'Description', 'UpdatedAt'].sort(),
    );
    expect(created.body).toMatchObject({ ApplicationName: 'Space Race', Description: 'arcade' });
    expect(created.body.ApplicationId).toMatch(UUID);
    expect(created.body.CreatedAt).toMatch(ISO_UTC);
    expect(created.body.UpdatedAt).toBe(created.body.CreatedAt);

    const got = await callAdmin(env, 'GET', RESOURCES.application, { app: created.body.ApplicationId });
    expect(got).toMatchObject({ statusCode: 200, body: created.body });
    // Ids are case-insensitive UUIDs.
    const upper = await callAdmin(env, 'GET', RESOURCES.application, {
      app: (created.body.ApplicationId as string).toUpperCase(),
    });
    expect(upper.body).toEqual(created.body);

    const listed = await callAdmin(env, 'GET', RESOURCES.applications);
    expect(listed.statusCode).toBe(200);
    expect(listed.body.Count).toBe(listed.body.Applications.length);
    expect(listed.body.Applications).toContainEqual(created.body);
  });

  test('Description defaults to an empty string', async () => {
    const res = await callAdmin(env, 'POST', RESOURCES.applications, {}, { Name: 'No description' });
    expect(res.body.Description).toBe('');
  });

  test('an empty list is 200 with Count 0', async () => {
    const fresh = await startAnalyticsEnv();
    try {
      const res = await callAdmin(fresh, 'GET', RESOURCES.applications);
      expect(res).toMatchObject({ statusCode: 200, body: { Applications: [], Count: 0 } });
      const app = await createApplication(fresh);
      const keys = await callAdmin(fresh, 'GET', RESOURCES.authorizations, { app });
      expect(keys).toMatchObject({ statusCode: 200, body: { Authorizations: [], Count: 0 } });
    } finally {
      await fresh.close();
    }
  });

  test('listing follows Scan pages beyond 1 MB', async () => {
    const fresh = await startAnalyticsEnv();
    try {
      // ~1.2 KB per item (Description at its limit): 1000 items span more than one 1 MB Scan page.
      const at = new Date().toISOString();
      const items = Array.from({ length: 1000 }, () => ({
        ApplicationId: randomUUID(),
        ApplicationName: 'seeded',
        Description: 'd'.repeat(1024),
        CreatedAt: at,
        UpdatedAt: at,
      }));
      const table = tableName(PROJECT, ANALYTICS_TABLES.applications);
      await seedItems(fresh.dynamo.client(), table, items);
      const page = await fresh.dynamo.client().send(new ScanCommand({ TableName: table }));
      expect(page.LastEvaluatedKey).toBeDefined();
      const res = await callAdmin(fresh, 'GET', RESOURCES.applications);
      expect(res.body.Count).toBe(1000);
      expect(new Set(res.body.Applications.map((a: { ApplicationId: string }) => a.ApplicationId))).toEqual(
        new Set(items.map((i) => i.ApplicationId)),
      );
    } finally {
      await fresh.close();
    }
  });

  test('delete answers a plain JSON string; the application is gone afterwards', async () => {
    const app = await createApplication(env, 'doomed');
    const res = await callAdmin(env, 'DELETE', RESOURCES.application, { app });
    expect(res).toEqual(expect.objectContaining({ statusCode: 200, body: `Deleted application ${app}` }));
    expect((await callAdmin(env, 'GET', RESOURCES.application, { app })).statusCode).toBe(404);
    expect((await callAdmin(env, 'DELETE', RESOURCES.application, { app })).statusCode).toBe(404);
  });
});

describe('authorizations', () => {
  test('create returns the full key once; list and get show only the mask; only the hash is stored', async () => {
    const app = await createApplication(env);
    const created = await callAdmin(
      env,
      'POST',
      RESOURCES.authorizations,
      { app },
      { Name: 'ios client', Description: 'shipped in 2.1' },
    );
    expect(created.statusCode).toBe(200);
    const key = created.body;
    expect(Object.keys(key).sort()).toEqual(
      [
        'ApiKeyDescription',
        'ApiKeyId',
        'ApiKeyName',
        'ApiKeyValue',
        'ApplicationId',
        'CreatedAt',
        'Enabled',
        'UpdatedAt',
      ].sort(),
    );
    expect(key).toMatchObject({
      ApiKeyName: 'ios client',
      ApiKeyDescription: 'shipped in 2.1',
      ApplicationId: app,
      Enabled: true,
    });
    expect(key.ApiKeyId).toMatch(UUID);
    expect(key.ApiKeyValue).toMatch(/^gak_[A-Za-z0-9_-]{43}$/);
    expect(key.CreatedAt).toMatch(ISO_UTC);

    const value = key.ApiKeyValue as string;
    const mask = `gak_${value.slice(4, 8)}…${value.slice(-4)}`;
    const got = await callAdmin(env, 'GET', RESOURCES.authorization, { app, key: key.ApiKeyId });
    expect(got.body).toEqual({ ...key, ApiKeyValue: mask });
    const listed = await callAdmin(env, 'GET', RESOURCES.authorizations, { app });
    expect(listed.body).toEqual({ Authorizations: [{ ...key, ApiKeyValue: mask }], Count: 1 });

    const stored = await env.dynamo.client().send(
      new QueryCommand({
        TableName: tableName(PROJECT, ANALYTICS_TABLES.authorizations),
        KeyConditionExpression: 'ApplicationId = :a',
        ExpressionAttributeValues: { ':a': { S: app } },
      }),
    );
    const item = JSON.stringify(stored.Items);
    expect(item).not.toContain(value);
    expect(item).not.toContain(value.slice(4));
    expect(stored.Items?.[0]?.['ApiKeyHash']).toEqual({ S: hashApiKey(value) });
    expect(env.logger.lines.join('\n')).not.toContain(value.slice(4));
  });

  test('two keys get different values; PUT toggles Enabled and UpdatedAt', async () => {
    const app = await createApplication(env);
    const a = await createKey(env, app, 'a');
    const b = await createKey(env, app, 'b');
    expect(a.value).not.toBe(b.value);
    const put = await callAdmin(env, 'PUT', RESOURCES.authorization, { app, key: a.id }, { Enabled: false });
    expect(put).toMatchObject({ statusCode: 200, body: { Enabled: false } });
    const got = await callAdmin(env, 'GET', RESOURCES.authorization, { app, key: a.id });
    expect(got.body.Enabled).toBe(false);
    expect(got.body.UpdatedAt >= got.body.CreatedAt).toBe(true);
    const back = await callAdmin(env, 'PUT', RESOURCES.authorization, { app, key: a.id }, { Enabled: true });
    expect(back.body).toEqual({ Enabled: true });
    const listed = await callAdmin(env, 'GET', RESOURCES.authorizations, { app });
    expect(listed.body.Count).toBe(2);
    expect(listed.body.Authorizations.map((k: { ApiKeyName: string }) => k.ApiKeyName)).toEqual(['a', 'b']);
  });

  test('delete answers a plain string; the key is gone; a second delete is 404', async () => {
    const app = await createApplication(env);
    const k = await createKey(env, app);
    const res = await callAdmin(env, 'DELETE', RESOURCES.authorization, { app, key: k.id });
    expect(res).toMatchObject({ statusCode: 200, body: `Deleted authorization ${k.id}` });
    expect((await callAdmin(env, 'GET', RESOURCES.authorization, { app, key: k.id })).statusCode).toBe(404);
    expect((await callAdmin(env, 'DELETE', RESOURCES.authorization, { app, key: k.id })).statusCode).toBe(
      404,
    );
  });

  test('a key for an unknown application is 404 and leaves no item behind', async () => {
    const ghost = randomUUID();
    const res = await callAdmin(env, 'POST', RESOURCES.authorizations, { app: ghost }, { Name: 'x' });
    expect(res).toMatchObject({ statusCode: 404, body: { message: `Application ${ghost} not found` } });
    const stored = await env.dynamo.client().send(
      new QueryCommand({
        TableName: tableName(PROJECT, ANALYTICS_TABLES.authorizations),
        KeyConditionExpression: 'ApplicationId = :a',
        ExpressionAttributeValues: { ':a': { S: ghost } },
      }),
    );
    expect(stored.Count).toBe(0);
  });

  test('create answers only once the authorizer index shows the key, so its first use is allowed', async () => {
    let indexQueries: () => number = () => 0;
    const lagging = await startAnalyticsEnv({
      dynamodbClient: (local) => {
        const wrapped = laggingIndexClient(local, 3);
        indexQueries = wrapped.indexQueries;
        return wrapped.client;
      },
    });
    try {
      const app = await createApplication(lagging);
      const key = await createKey(lagging, app);
      // Three index reads found nothing (the GSI catching up); the fourth saw the key, then create answered.
      expect(indexQueries()).toBe(4);
      const decision = await authorize(lagging, key.value, eventsMethodArn(app));
      expect(decision).toMatchObject({ policyDocument: { Statement: [{ Effect: 'Allow' }] } });
      expect(lagging.logger.entries().filter((e) => e.level === 'warn')).toEqual([]);
    } finally {
      await lagging.close();
    }
  });

  test('an index that lags past the wait still creates the key, with a warning that holds no key', async () => {
    const lagging = await startAnalyticsEnv({
      dynamodbClient: (local) => laggingIndexClient(local, Number.POSITIVE_INFINITY).client,
      keyIndexWaitMs: 200,
    });
    try {
      const app = await createApplication(lagging);
      const key = await createKey(lagging, app);
      const warnings = lagging.logger.entries().filter((e) => e.level === 'warn');
      expect(warnings).toEqual([
        {
          level: 'warn',
          message: 'api key not yet visible to the authorizer',
          fields: { application_id: app, api_key_id: key.id, waited_ms: 200 },
        },
      ]);
      expect(lagging.logger.lines.join('\n')).not.toContain(key.value.slice(4));
      expect(
        (await callAdmin(lagging, 'GET', RESOURCES.authorization, { app, key: key.id })).statusCode,
      ).toBe(200);
    } finally {
      await lagging.close();
    }
  });

  test('deleting an application deletes all its keys: Query pages, batches of 25, unprocessed items retried', async () => {
    let calls: number[] = [];
    const fresh = await startAnalyticsEnv({
      dynamodbClient: (local) => {
        const wrapped = partialBatchWriteClient(local, 20);
        calls = wrapped.batchCalls;
        return wrapped.client;
      },
    });
    try {
      const app = await createApplication(fresh);
      const other = await createApplication(fresh);
      const otherKey = await createKey(fresh, other);
      // 850 keys of ~1.3 KB: more than one 1 MB Query page.
      const at = new Date().toISOString();
      const keys = Array.from({ length: 850 }, (_, i) => ({
        ApplicationId: app,
        ApiKeyId: randomUUID(),
        ApiKeyHash: hashApiKey(`gak_${String(i).padStart(43, 'x')}`),
        ApiKeyMasked: 'gak_xxxx…xxxx',
        ApiKeyName: `k${i}`,
        ApiKeyDescription: 'd'.repeat(1024),
        CreatedAt: at,
        UpdatedAt: at,
        Enabled: true,
      }));
      const table = tableName(PROJECT, ANALYTICS_TABLES.authorizations);
      await seedItems(fresh.dynamo.client(), table, keys);
      const firstPage = await fresh.dynamo.client().send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: 'ApplicationId = :a',
          ExpressionAttributeValues: { ':a': { S: app } },
        }),
      );
      expect(firstPage.LastEvaluatedKey).toBeDefined();

      expect((await callAdmin(fresh, 'DELETE', RESOURCES.application, { app })).statusCode).toBe(200);
      const left = await fresh.dynamo.client().send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: 'ApplicationId = :a',
          ExpressionAttributeValues: { ':a': { S: app } },
          Select: 'COUNT',
        }),
      );
      expect(left.Count).toBe(0);
      // Batches of at most 25; each call wrote 20 and handed the rest back, which was retried.
      expect(Math.max(...calls)).toBe(25);
      expect(calls.reduce((sum, n) => sum + Math.min(n, 20), 0)).toBe(850);
      expect(calls.filter((n) => n === 5).length).toBeGreaterThanOrEqual(30);
      expect((await callAdmin(fresh, 'GET', RESOURCES.authorizations, { app })).statusCode).toBe(404);
      // Another application's keys are untouched.
      expect(
        (await callAdmin(fresh, 'GET', RESOURCES.authorization, { app: other, key: otherKey.id })).statusCode,
      ).toBe(200);
    } finally {
      await fresh.close();
    }
  });
});

describe('errors are JSON {"message"} naming the problem', () => {
  let app: string;
  let key: string;
  beforeAll(async () => {
    app = await createApplication(env);
    key = (await createKey(env, app)).id;
  });

  const cases: [
    string,
    string,
    string,
    (a: string, k: string) => { app?: string; key?: string },
    unknown,
    number,
    RegExp,
  ][] = [
    ['Name missing', 'POST', RESOURCES.applications, () => ({}), {}, 400, /^Name is required$/],
    [
      'Name not a string',
      'POST',
      RESOURCES.applications,
      () => ({}),
      { Name: 7 },
      400,
      /^Name must be a string$/,
    ],
    [
      'Name blank',
      'POST',
      RESOURCES.applications,
      () => ({}),
      { Name: '   ' },
      400,
      /^Name must be 1 to 128/,
    ],
    [
      'Name too long',
      'POST',
      RESOURCES.applications,
      () => ({}),
      { Name: 'n'.repeat(129) },
      400,
      /^Name must be 1 to 128/,
    ],
    [
      'Name control char',
      'POST',
      RESOURCES.applications,
      () => ({}),
      { Name: 'a\u0007b' },
      400,
      /^Name must not contain control/,
    ],
    [
      'Description not a string',
      'POST',
      RESOURCES.applications,
      () => ({}),
      { Name: 'x', Description: null },
      400,
      /^Description must be a string$/,
    ],
    [
      'Description too long',
      'POST',
      RESOURCES.applications,
      () => ({}),
      { Name: 'x', Description: 'd'.repeat(1025) },
      400,
      /^Description must be at most 1024/,
    ],
    [
      'unknown field',
      'POST',
      RESOURCES.applications,
      () => ({}),
      { Name: 'x', Colour: 'red' },
      400,
      /^Unknown field "Colour" \(allowed: Name, Description\)$/,
    ],
    [
      'malformed JSON',
      'POST',
      RESOURCES.applications,
      () => ({}),
      '{"Name": "x",',
      400,
      /^Request body is not valid JSON$/,
    ],
    [
      'body not an object',
      'POST',
      RESOURCES.applications,
      () => ({}),
      '["Name"]',
      400,
      /^Request body must be a JSON object$/,
    ],
    ['empty body', 'POST', RESOURCES.applications, () => ({}), undefined, 400, /^Request body is required/],
    [
      // API Gateway hands the function U+FFFD for every byte sequence that is not UTF-8.
      'body that was not UTF-8 on the wire',
      'POST',
      RESOURCES.applications,
      () => ({}),
      '{"Name":"\uFFFD\uFFFD"}',
      400,
      /^Request body is not valid UTF-8$/,
    ],
    [
      'key body that was not UTF-8 on the wire',
      'POST',
      RESOURCES.authorizations,
      (a) => ({ app: a }),
      '{"Name":"key","Description":"caf\uFFFD"}',
      400,
      /^Request body is not valid UTF-8$/,
    ],
    [
      'oversized body',
      'POST',
      RESOURCES.applications,
      () => ({}),
      { Name: 'x', Description: 'd'.repeat(70_000) },
      413,
      /^Request body too large/,
    ],
    [
      'bad application id',
      'GET',
      RESOURCES.application,
      () => ({ app: 'not-a-uuid' }),
      undefined,
      400,
      /^Path parameter APPLICATION_ID must be a UUID$/,
    ],
    [
      'bad key id',
      'GET',
      RESOURCES.authorization,
      (a) => ({ app: a, key: '1234' }),
      undefined,
      400,
      /^Path parameter API_KEY_ID must be a UUID$/,
    ],
    [
      'bad id on PUT before the body',
      'PUT',
      RESOURCES.authorization,
      (a) => ({ app: a, key: 'x' }),
      'not json',
      400,
      /^Path parameter API_KEY_ID/,
    ],
    [
      'unknown application',
      'GET',
      RESOURCES.application,
      () => ({ app: randomUUID() }),
      undefined,
      404,
      /^Application .* not found$/,
    ],
    [
      'keys of unknown application',
      'GET',
      RESOURCES.authorizations,
      () => ({ app: randomUUID() }),
      undefined,
      404,
      /^Application .* not found$/,
    ],
    [
      'unknown key',
      'GET',
      RESOURCES.authorization,
      (a) => ({ app: a, key: randomUUID() }),
      undefined,
      404,
      /^Authorization .* not found in application/,
    ],
    [
      'PUT unknown key',
      'PUT',
      RESOURCES.authorization,
      (a) => ({ app: a, key: randomUUID() }),
      { Enabled: false },
      404,
      /not found/,
    ],
    [
      'PUT key of another application',
      'PUT',
      RESOURCES.authorization,
      (_a, k) => ({ app: randomUUID(), key: k }),
      { Enabled: false },
      404,
      /not found/,
    ],
    [
      'GET key of another application',
      'GET',
      RESOURCES.authorization,
      (_a, k) => ({ app: randomUUID(), key: k }),
      undefined,
      404,
      /not found/,
    ],
    [
      'DELETE key of another application',
      'DELETE',
      RESOURCES.authorization,
      (_a, k) => ({ app: randomUUID(), key: k }),
      undefined,
      404,
      /not found/,
    ],
    [
      'Enabled as a string',
      'PUT',
      RESOURCES.authorization,
      (a, k) => ({ app: a, key: k }),
      { Enabled: 'true' },
      400,
      /^Enabled must be a boolean/,
    ],
    [
      'Enabled missing',
      'PUT',
      RESOURCES.authorization,
      (a, k) => ({ app: a, key: k }),
      {},
      400,
      /^Enabled is required$/,
    ],
    [
      'PUT unknown field',
      'PUT',
      RESOURCES.authorization,
      (a, k) => ({ app: a, key: k }),
      { Enabled: true, Name: 'x' },
      400,
      /^Unknown field "Name" \(allowed: Enabled\)$/,
    ],
    [
      'key Name missing',
      'POST',
      RESOURCES.authorizations,
      (a) => ({ app: a }),
      { Description: 'x' },
      400,
      /^Name is required$/,
    ],
    [
      'method not allowed',
      'PATCH',
      RESOURCES.application,
      (a) => ({ app: a }),
      undefined,
      405,
      /^Method Not Allowed$/,
    ],
    [
      'unknown resource',
      'GET',
      '/applications/{APPLICATION_ID}/secrets',
      (a) => ({ app: a }),
      undefined,
      404,
      /^Not found$/,
    ],
  ];

  test.each(cases)('%s', async (_name, method, resource, ids, body, status, message) => {
    const res = await callAdmin(env, method, resource, ids(app, key), body);
    expect(res.statusCode).toBe(status);
    expect(Object.keys(res.body)).toEqual(['message']);
    expect(res.body.message).toMatch(message);
  });

  test('the key survived the failed PUT of another application', async () => {
    expect((await callAdmin(env, 'GET', RESOURCES.authorization, { app, key })).body.Enabled).toBe(true);
  });
});

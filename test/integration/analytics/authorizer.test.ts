/**
 * The REQUEST authorizer against dynalite, with keys created through the admin handler: the Allow policy
 * names exactly the key's own events resource; missing, malformed and unknown keys are refused with
 * 'Unauthorized' (API Gateway 401), disabled keys and keys of a deleted application with an explicit
 * Deny (403); an unreachable table throws
 * another error (API Gateway 500, not cached); the key never reaches the logs.
 */
import { randomUUID } from 'node:crypto';
import { DeleteItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { ANALYTICS_TABLES } from '../../../contracts/analytics-resources.js';
import { tableName } from '../../../contracts/tables.js';
import * as authorizer from '../../../lambda/analytics-authorizer/index.js';
import { generateApiKey, hashApiKey } from '../../../lambda/shared/analytics/api-keys.js';
import {
  authorize,
  callAdmin,
  capturingLogger,
  CONTEXT,
  createApplication,
  createKey,
  eventsMethodArn,
  METHOD_ARN_PREFIX,
  PROJECT,
  RESOURCES,
  sendEvents,
  startAnalyticsEnv,
  unreachableDynamo,
  type AnalyticsEnv,
} from './harness.js';

/** An application id as the Allow policy names it: any letter case (each letter is IAM's `?`). */
const anyCase = (id: string) => id.replace(/[a-f]/g, '?');

let env: AnalyticsEnv;
beforeAll(async () => void (env = await startAnalyticsEnv()));
afterAll(() => env.close());

describe('a usable key', () => {
  test('is allowed exactly POST on its own application events resource, whatever path was called', async () => {
    const app = await createApplication(env);
    const other = await createApplication(env);
    const key = await createKey(env, app);
    const expected = {
      principalId: key.id,
      policyDocument: {
        Version: '2012-10-17',
        Statement: [
          {
            Action: 'execute-api:Invoke',
            Effect: 'Allow',
            Resource: `${METHOD_ARN_PREFIX}/POST/applications/${anyCase(app)}/events`,
          },
        ],
      },
      context: { applicationId: app, apiKeyId: key.id },
    };
    expect(await authorize(env, key.value, eventsMethodArn(app))).toEqual(expected);
    // Requested for another application: the (cacheable) answer still names only the key's own
    // application, so API Gateway's policy check refuses the other path (403).
    expect(await authorize(env, key.value, eventsMethodArn(other))).toEqual(expected);
    expect(JSON.stringify(await authorize(env, key.value, eventsMethodArn(other)))).not.toContain(other);
    // `Bearer <key>` is the same key.
    expect(await authorize(env, `Bearer ${key.value}`, eventsMethodArn(app))).toEqual(expected);
  });

  test('the stage and API id come from the methodArn (another stage, another partition)', async () => {
    const app = await createApplication(env);
    const key = await createKey(env, app);
    const arn = `arn:aws-cn:execute-api:cn-north-1:111122223333:zz99yy/beta/POST/applications/${app}/events`;
    const res = await authorize(env, key.value, arn);
    expect(res.policyDocument.Statement[0]).toMatchObject({
      Resource: `arn:aws-cn:execute-api:cn-north-1:111122223333:zz99yy/beta/POST/applications/${anyCase(app)}/events`,
    });
  });

  test('an upper-case application id in the path gets the same Allow (ids are UUIDs of any case)', async () => {
    const app = await createApplication(env);
    const key = await createKey(env, app);
    const lower = await authorize(env, key.value, eventsMethodArn(app));
    expect(await authorize(env, key.value, eventsMethodArn(app.toUpperCase()))).toEqual(lower);
    expect(lower.context).toEqual({ applicationId: app, apiKeyId: key.id });
  });
});

describe('more than one Authorization value: refused (401) before any lookup', () => {
  const withValues = (methodArn: string, multiValueHeaders: Record<string, string[]>) =>
    env.authorizer(
      {
        methodArn,
        // API Gateway's single-value map keeps the last value of each header.
        headers: Object.fromEntries(Object.entries(multiValueHeaders).map(([k, v]) => [k, v.at(-1)!])),
        multiValueHeaders,
        requestContext: undefined,
      },
      CONTEXT,
    );

  test('junk then a valid key, a valid key then junk, the same key twice, two spellings of the name', async () => {
    const app = await createApplication(env);
    const key = await createKey(env, app);
    const arn = eventsMethodArn(app);
    const cases: Record<string, string[]>[] = [
      { Authorization: ['junk', key.value] },
      { Authorization: [key.value, 'junk'] },
      { Authorization: [key.value, key.value] },
      { Authorization: [key.value], authorization: [key.value] },
    ];
    for (const headers of cases) {
      await expect(withValues(arn, headers)).rejects.toThrow(/^Unauthorized$/);
    }
    // One value is still fine.
    expect((await withValues(arn, { Authorization: [key.value] })).policyDocument.Statement[0]).toMatchObject(
      {
        Effect: 'Allow',
      },
    );
    const refusals = env.logger
      .entries()
      .filter((e) => e.fields['reason'] === 'several_authorization_values');
    expect(refusals.length).toBeGreaterThanOrEqual(4);
    expect(env.logger.lines.join('\n')).not.toContain(key.value.slice(4, 20));
  });

  test('generated lists of 2–4 values, a valid key anywhere among them, are all refused', async () => {
    const app = await createApplication(env);
    const key = await createKey(env, app);
    const arn = eventsMethodArn(app);
    const junk = fc.oneof(
      fc.string({ maxLength: 60 }),
      fc.constant(generateApiKey()),
      fc.constant(key.value),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(junk, { minLength: 1, maxLength: 3 }), fc.nat(3), async (others, at) => {
        const values = [...others];
        values.splice(at % (values.length + 1), 0, key.value);
        await expect(withValues(arn, { Authorization: values })).rejects.toThrow(/^Unauthorized$/);
      }),
      { numRuns: 40, seed: 25 },
    );
  });
});

/** The explicit Deny a known but unusable key gets (API Gateway 403): the whole stage, no context. */
const stageDeny = (app: string, keyId: string) => ({
  principalId: keyId,
  policyDocument: {
    Version: '2012-10-17',
    Statement: [
      {
        Action: 'execute-api:Invoke',
        Effect: 'Deny',
        Resource: eventsMethodArn(app).replace(/\/POST\/applications\/.*$/, '/*'),
      },
    ],
  },
});

describe('refusals: unknown credentials throw Unauthorized (401), known but unusable keys get a Deny (403)', () => {
  test.each([
    ['no Authorization header', undefined],
    ['empty header', ''],
    ['not one of our keys', 'Basic dXNlcjpwYXNz'],
    ['well-formed but unknown', generateApiKey()],
  ])('%s', async (_name, value) => {
    const app = await createApplication(env);
    await expect(authorize(env, value, eventsMethodArn(app))).rejects.toThrow(/^Unauthorized$/);
  });

  test('revocation: PUT Enabled false refuses the key; Enabled true allows it again', async () => {
    const app = await createApplication(env);
    const key = await createKey(env, app);
    await expect(authorize(env, key.value, eventsMethodArn(app))).resolves.toBeDefined();
    await callAdmin(env, 'PUT', RESOURCES.authorization, { app, key: key.id }, { Enabled: false });
    expect(await authorize(env, key.value, eventsMethodArn(app))).toEqual(stageDeny(app, key.id));
    await callAdmin(env, 'PUT', RESOURCES.authorization, { app, key: key.id }, { Enabled: true });
    const back = await authorize(env, key.value, eventsMethodArn(app));
    expect(back.context).toEqual({ applicationId: app, apiKeyId: key.id });
  });

  test('a deleted key is refused', async () => {
    const app = await createApplication(env);
    const key = await createKey(env, app);
    await callAdmin(env, 'DELETE', RESOURCES.authorization, { app, key: key.id });
    await expect(authorize(env, key.value, eventsMethodArn(app))).rejects.toThrow(/^Unauthorized$/);
  });

  test('deleting the application leaves no usable key: refused, gone from the table, events refused', async () => {
    const app = await createApplication(env);
    const keys = [await createKey(env, app), await createKey(env, app)];
    for (const k of keys) await expect(authorize(env, k.value, eventsMethodArn(app))).resolves.toBeDefined();
    expect((await callAdmin(env, 'DELETE', RESOURCES.application, { app })).statusCode).toBe(200);
    for (const k of keys) {
      // Keys are deleted after the application: refused as unknown (401) once gone.
      await expect(authorize(env, k.value, eventsMethodArn(app))).rejects.toThrow(/^Unauthorized$/);
    }
    const left = await env.dynamo.client().send(
      new QueryCommand({
        TableName: tableName(PROJECT, ANALYTICS_TABLES.authorizations),
        KeyConditionExpression: 'ApplicationId = :a',
        ExpressionAttributeValues: { ':a': { S: app } },
      }),
    );
    expect(left.Count).toBe(0);
    // API Gateway may still hold the Allow in its cache: the events handler itself refuses.
    const res = await sendEvents(env, app, {
      Events: [{ event_id: randomUUID(), event_type: 't', event_name: 'n', event_timestamp: Date.now() }],
    });
    expect(res).toMatchObject({ statusCode: 403, body: { message: 'Forbidden' } });
  });

  test('a key whose application vanished before its keys were cleaned up is refused', async () => {
    // The state a crash between the two steps of an application delete leaves behind.
    const app = await createApplication(env);
    const key = await createKey(env, app);
    await env.dynamo.client().send(
      new DeleteItemCommand({
        TableName: tableName(PROJECT, ANALYTICS_TABLES.applications),
        Key: { ApplicationId: { S: app } },
      }),
    );
    expect(await authorize(env, key.value, eventsMethodArn(app))).toEqual(stageDeny(app, key.id));
  });
});

describe('infrastructure failures', () => {
  test('an unreachable table throws a non-Unauthorized error (API Gateway 500, not cached)', async () => {
    const logger = capturingLogger();
    const handler = authorizer.createHandlerFromEnv(env.env, { dynamodb: unreachableDynamo(), logger });
    const value = generateApiKey();
    const error = await handler(
      { methodArn: eventsMethodArn(randomUUID()), headers: { authorization: value } },
      CONTEXT,
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(authorizer.AuthorizerUnavailableError);
    expect((error as Error).message).not.toBe('Unauthorized');
    expect(logger.entries().map((e) => [e.level, e.message])).toEqual([['error', 'api key lookup failed']]);
    expect(logger.lines.join('\n')).not.toContain(value.slice(4));
  });

  test('a malformed methodArn is an error, never a wildcard policy', async () => {
    const app = await createApplication(env);
    const key = await createKey(env, app);
    await expect(authorize(env, key.value, 'not-an-arn')).rejects.toThrow(/methodArn/);
  });

  test('missing configuration fails every request with a non-Unauthorized error', () => {
    expect(() => authorizer.createHandlerFromEnv({}, {})).toThrow(
      /APPLICATIONS_TABLE.*\n.*AUTHORIZATIONS_TABLE/s,
    );
  });
});

test('no key value (nor more than 6 characters of its hash) ever reaches the logs', async () => {
  const app = await createApplication(env);
  const key = await createKey(env, app);
  await authorize(env, key.value, eventsMethodArn(app));
  await callAdmin(env, 'PUT', RESOURCES.authorization, { app, key: key.id }, { Enabled: false });
  await authorize(env, key.value, eventsMethodArn(app)).catch(() => undefined);
  await authorize(env, generateApiKey(), eventsMethodArn(app)).catch(() => undefined);
  const logs = env.logger.lines.join('\n');
  expect(logs).toContain('key_disabled');
  expect(logs).not.toContain(key.value.slice(4, 20));
  const hash = hashApiKey(key.value);
  expect(logs).toContain(hash.slice(0, 6));
  expect(logs).not.toContain(hash.slice(0, 7));
});

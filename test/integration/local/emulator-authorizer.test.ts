/**
 * The REQUEST Lambda authorizer as the emulator runs it: identity source required, 'Unauthorized' → 401,
 * Deny / uncovered method ARN → 403 with API Gateway's bodies, other failures → 500, Allow → context in
 * `requestContext.authorizer`, and the result cache keyed on the Authorization header with its TTL
 * (a controllable clock drives expiry; TTL 0 means every request invokes the authorizer).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import type { ApiDefinition } from '../../../contracts/api-routes.js';
import {
  startApiGatewayEmulator,
  type ApiGatewayEmulator,
} from '../../../local/api-gateway-emulator/index.js';
import { lambdaIntegration, rawRequest, TEST_ACCOUNT_CREDENTIALS } from './support.js';

const definition: ApiDefinition = {
  id: 'analytics',
  title: 'authorizer test API',
  version: '1.0.0',
  endpointType: 'REGIONAL',
  stage: 'live',
  throttling: { rateLimit: 10_000, burstLimit: 10_000 },
  routes: [
    {
      path: '/applications/{APPLICATION_ID}/events',
      method: 'POST',
      operationId: 'putEvents',
      auth: 'analytics-api-key',
      integration: lambdaIntegration('analytics-events', 29),
    },
    {
      path: '/applications/{APPLICATION_ID}/other',
      method: 'GET',
      operationId: 'other',
      auth: 'analytics-api-key',
      integration: lambdaIntegration('analytics-events', 29),
    },
  ],
};

const invocations = new Map<string, number>();
const seenEvents: APIGatewayRequestAuthorizerEvent[] = [];
let lastEvent: APIGatewayProxyEvent | undefined;

/** The test's authorizer: its decision is spelled out by the presented value. */
async function authorizer(event: APIGatewayRequestAuthorizerEvent): Promise<unknown> {
  const key = event.headers?.Authorization ?? event.headers?.authorization ?? '';
  invocations.set(key, (invocations.get(key) ?? 0) + 1);
  seenEvents.push(event);
  const stageArn = event.methodArn.replace(/\/(?:GET|POST)\/.*$/, '');
  const statement = (Effect: string, Resource: string) => ({
    principalId: `principal-${key}`,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect, Resource }],
    },
  });
  if (key === 'unauth') throw new Error('Unauthorized');
  if (key === 'boom') throw new Error('lookup failed');
  if (key === 'deny') return statement('Deny', event.methodArn);
  if (key === 'bad-context')
    return { ...statement('Allow', event.methodArn), context: { nested: { no: 1 } } };
  // Allow exactly the events resource of any application (the other route is not covered).
  return {
    ...statement('Allow', `${stageArn}/POST/applications/*/events`),
    context: { applicationId: 'app-1', count: 3, flag: true },
  };
}

const invoked = (key: string) => invocations.get(key) ?? 0;
let clock = Date.parse('2026-03-01T10:00:00Z');
let cached: ApiGatewayEmulator;
let uncached: ApiGatewayEmulator;

const start = (ttlSeconds: number) =>
  startApiGatewayEmulator({
    api: definition,
    region: 'us-east-2',
    accountId: '000000000000',
    credentials: TEST_ACCOUNT_CREDENTIALS,
    now: () => clock,
    lambdas: {
      'analytics-events': {
        kind: 'buffered',
        handler: async (event) => {
          lastEvent = event;
          return { statusCode: 200, body: '{"Total":0}' };
        },
      },
    },
    authorizers: {
      'analytics-api-key': {
        handler: authorizer,
        functionName: 'test-authorizer',
        identityHeader: 'authorization',
        ttlSeconds,
        timeoutMs: 10_000,
      },
    },
  });

beforeAll(async () => {
  [cached, uncached] = await Promise.all([start(300), start(0)]);
});
afterAll(async () => {
  await Promise.all([cached.close(), uncached.close()]);
});

const send = (
  api: ApiGatewayEmulator,
  key: string | readonly string[] | undefined,
  path = '/applications/app-1/events',
  method = 'POST',
) =>
  rawRequest(`${api.url}${path}`, {
    method,
    headers: [
      ['content-type', 'application/json'],
      // A list is sent as that many Authorization header lines, in order.
      ...(key === undefined ? [] : [key].flat().map((k): [string, string] => ['Authorization', k])),
    ],
    body: method === 'POST' ? '{"Events":[]}' : '',
  });

describe('decisions', () => {
  test('no Authorization header: 401 without invoking the authorizer', async () => {
    const before = seenEvents.length;
    const reply = await send(uncached, undefined);
    expect([reply.status, reply.json]).toEqual([401, { message: 'Unauthorized' }]);
    expect(seenEvents.length).toBe(before);
  });

  test('Allow: the integration runs with the authorizer context (values as strings)', async () => {
    const reply = await send(uncached, 'good');
    expect(reply.status).toBe(200);
    expect(lastEvent?.requestContext.authorizer).toEqual({
      principalId: 'principal-good',
      applicationId: 'app-1',
      count: '3',
      flag: 'true',
      integrationLatency: expect.any(Number),
    });
    const event = seenEvents[seenEvents.length - 1]!;
    expect(event).toMatchObject({
      type: 'REQUEST',
      methodArn: `arn:aws:execute-api:us-east-2:000000000000:${uncached.apiId}/live/POST/applications/app-1/events`,
      resource: '/applications/{APPLICATION_ID}/events',
      path: '/applications/app-1/events',
      pathParameters: { APPLICATION_ID: 'app-1' },
    });
  });

  test('explicit Deny and a policy that does not cover the method ARN: 403 with their messages', async () => {
    const denied = await send(uncached, 'deny');
    expect([denied.status, denied.json]).toEqual([
      403,
      { Message: 'User is not authorized to access this resource with an explicit deny' },
    ]);
    const uncovered = await send(uncached, 'good', '/applications/app-1/other', 'GET');
    expect([uncovered.status, uncovered.json]).toEqual([
      403,
      { Message: 'User is not authorized to access this resource' },
    ]);
  });

  test("'Unauthorized' is a 401; any other failure or an invalid result is a 500", async () => {
    expect((await send(uncached, 'unauth')).status).toBe(401);
    for (const key of ['boom', 'bad-context']) {
      const reply = await send(uncached, key);
      expect([reply.status, reply.json, reply.headers['x-amzn-errortype']]).toEqual([
        500,
        { message: null },
        'AuthorizerConfigurationException',
      ]);
    }
  });
});

describe('result cache', () => {
  test('TTL 0: every request invokes the authorizer', async () => {
    const before = invoked('ttl-zero');
    await send(uncached, 'ttl-zero');
    await send(uncached, 'ttl-zero');
    expect(invoked('ttl-zero') - before).toBe(2);
  });

  test('within the TTL one decision serves every request with that header, for each method ARN', async () => {
    expect((await send(cached, 'cache-me')).status).toBe(200);
    expect((await send(cached, 'cache-me')).status).toBe(200);
    expect(invoked('cache-me')).toBe(1);
    // The cached policy is evaluated again for another route: it does not cover it.
    expect((await send(cached, 'cache-me', '/applications/app-1/other', 'GET')).status).toBe(403);
    expect(invoked('cache-me')).toBe(1);
    // A different header value is a different cache entry.
    expect((await send(cached, 'cache-me-too')).status).toBe(200);
    expect(invoked('cache-me-too')).toBe(1);
  });

  test('after the TTL the authorizer is asked again', async () => {
    await send(cached, 'expiring');
    clock += 299_000;
    await send(cached, 'expiring');
    expect(invoked('expiring')).toBe(1);
    clock += 2_000;
    await send(cached, 'expiring');
    expect(invoked('expiring')).toBe(2);
  });

  test("an 'Unauthorized' answer is cached too; a failure (500) is not", async () => {
    const unauthorizedBefore = invoked('unauth');
    await send(cached, 'unauth');
    expect((await send(cached, 'unauth')).status).toBe(401);
    expect(invoked('unauth') - unauthorizedBefore).toBe(1);
    const before = invoked('boom');
    await send(cached, 'boom');
    await send(cached, 'boom');
    expect(invoked('boom') - before).toBe(2);
  });
});

describe('a repeated identity header', () => {
  test('the authorizer gets every value in multiValueHeaders and the last one in headers', async () => {
    await send(uncached, ['first', 'second']);
    const event = seenEvents[seenEvents.length - 1]!;
    expect(event.multiValueHeaders?.['Authorization']).toEqual(['first', 'second']);
    expect(event.headers?.['Authorization']).toBe('second');
  });

  test('is cached under all its values: never under the first value, never under the last', async () => {
    // The authorizer (above) decides on the last value, as `headers` carries it.
    expect((await send(cached, ['unauth', 'alias-target'])).status).toBe(200);
    expect(invoked('alias-target')).toBe(1);
    // The first value alone is its own entry: it does not inherit the pair's Allow…
    expect((await send(cached, 'unauth')).status).toBe(401);
    // …and the last value alone is its own entry too (asked afresh, not served the pair's decision).
    expect((await send(cached, 'alias-target')).status).toBe(200);
    expect(invoked('alias-target')).toBe(2);
    // The same pair again is served from its own entry.
    expect((await send(cached, ['unauth', 'alias-target'])).status).toBe(200);
    expect(invoked('alias-target')).toBe(2);
    // Order matters: the reversed pair is another entry, decided on its own last value.
    expect((await send(cached, ['alias-target', 'unauth'])).status).toBe(401);
    expect((await send(cached, 'alias-target')).status).toBe(200);
  });

  test('blank values are no identity: 401 without an invocation', async () => {
    const before = seenEvents.length;
    expect((await send(cached, ['', ' '])).status).toBe(401);
    expect(seenEvents.length).toBe(before);
  });
});

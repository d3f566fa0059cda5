/**
 * The API Gateway emulator over HTTP: the REST proxy event its functions receive, the Lambda context,
 * the gateway's own answers (stage, resource, auth, crash, malformed result, timeout) and response
 * streaming that hands each chunk on as the function writes it. The functions here are plain Lambda
 * handlers written for the test; everything between the socket and them is the emulator.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import type { ApiDefinition } from '../../../contracts/api-routes.js';
import {
  startApiGatewayEmulator,
  type AccessLogEntry,
  type ApiGatewayEmulator,
} from '../../../local/api-gateway-emulator/index.js';
import { HttpResponseStream, streamifyResponse } from '../../../lambda/shared/streaming.js';
import { lambdaIntegration, rawRequest, signedRequest, TEST_ACCOUNT_CREDENTIALS } from './support.js';

const REGION = 'us-east-2';
const credentials = TEST_ACCOUNT_CREDENTIALS;
const developer = credentials.developer;

const definition: ApiDefinition = {
  id: 'regional',
  title: 'emulator test API',
  version: '1.0.0',
  endpointType: 'REGIONAL',
  stage: 'prod',
  throttling: { rateLimit: 10_000, burstLimit: 10_000 },
  routes: [
    {
      path: '/echo/{proxy+}',
      method: 'POST',
      operationId: 'echoPost',
      auth: 'iam',
      integration: lambdaIntegration('control-plane-proxy', 29),
    },
    {
      path: '/echo/{proxy+}',
      method: 'GET',
      operationId: 'echoGet',
      auth: 'iam',
      integration: lambdaIntegration('control-plane-proxy', 29),
    },
    {
      path: '/open',
      method: 'GET',
      operationId: 'open',
      auth: 'none',
      integration: { type: 'mock', statusCode: 200 },
    },
    {
      path: '/slow',
      method: 'GET',
      operationId: 'slow',
      auth: 'none',
      integration: lambdaIntegration('aggregator', 0.3),
    },
    {
      path: '/stream/{proxy+}',
      method: 'GET',
      operationId: 'stream',
      auth: 'none',
      integration: lambdaIntegration('inference-stream-proxy', 0.5, true),
    },
  ],
};

let seen: { event: APIGatewayProxyEvent; context: Context; remaining: number } | undefined;
let releaseStream: () => void = () => undefined;
let api: ApiGatewayEmulator;

async function echo(event: APIGatewayProxyEvent, context: Context): Promise<unknown> {
  seen = { event, context, remaining: context.getRemainingTimeInMillis() };
  switch (event.pathParameters?.proxy) {
    case 'crash':
      throw new Error('handler bug');
    case 'malformed':
      return { statusCode: 200, body: { not: 'a string' } };
    case 'binary':
      return {
        statusCode: 200,
        headers: { 'content-type': 'application/octet-stream' },
        body: Buffer.from([0, 1, 254, 255]).toString('base64'),
        isBase64Encoded: true,
      };
    case 'cookies':
      return {
        statusCode: 201,
        headers: { 'x-one': 'a' },
        multiValueHeaders: { 'Set-Cookie': ['a=1', 'b=2'], 'x-one': ['a'] },
        body: 'made',
      };
    default:
      return { statusCode: 200, body: JSON.stringify({ ok: true }) };
  }
}

const streamer = streamifyResponse<APIGatewayProxyEvent, Context>(async (event, responseStream) => {
  if (event.pathParameters?.proxy === 'crash') throw new Error('no prelude');
  if (event.pathParameters?.proxy === 'silent') {
    // Unref'd: the test process need not wait for a function the gateway has given up on.
    await new Promise((resolve) => setTimeout(resolve, 2_000).unref());
    responseStream.end();
    return;
  }
  const out = HttpResponseStream.from(responseStream, {
    statusCode: 207,
    headers: { 'content-type': 'text/plain' },
  });
  out.write('first;');
  // The rest only once the test has received the first chunk: nothing may wait for the end.
  await new Promise<void>((resolve) => {
    releaseStream = resolve;
  });
  out.write('second;');
  out.end('last');
});

beforeAll(async () => {
  api = await startApiGatewayEmulator({
    api: definition,
    region: REGION,
    accountId: '000000000000',
    credentials,
    binaryMediaTypes: ['application/octet-stream', 'image/*'],
    functionName: (handler) => `test-${handler}`,
    lambdas: {
      'control-plane-proxy': { kind: 'buffered', handler: echo },
      aggregator: {
        kind: 'buffered',
        handler: () =>
          new Promise((resolve) =>
            setTimeout(() => resolve({ statusCode: 200, body: 'late' }), 2_000).unref(),
          ),
      },
      'inference-stream-proxy': { kind: 'streaming', handler: streamer },
    },
  });
});
afterAll(() => api.close());

const sign = (opts: Omit<Parameters<typeof signedRequest>[1], 'region' | 'credentials'>) =>
  signedRequest(api.url, { region: REGION, credentials: developer, ...opts });

describe('the proxy event', () => {
  test('REST v1 shape: stage stripped, multi-value headers and query, decoded path parameters, identity', async () => {
    const reply = await sign({
      method: 'POST',
      path: '/echo/a%20b/c',
      query: { a: ['1', '2'], b: 'x y' },
      headers: { 'content-type': 'application/json', 'user-agent': 'emulator-test/1.0' },
      extraHeaders: [
        ['X-Multi', 'one'],
        ['X-Multi', 'two'],
      ],
      body: '{"hello":"world"}',
    });
    expect(reply.status).toBe(200);
    const { event, context, remaining } = seen!;
    expect(event).toMatchObject({
      resource: '/echo/{proxy+}',
      path: '/echo/a%20b/c',
      httpMethod: 'POST',
      pathParameters: { proxy: 'a b/c' },
      queryStringParameters: { a: '2', b: 'x y' },
      multiValueQueryStringParameters: { a: ['1', '2'], b: ['x y'] },
      stageVariables: null,
      body: '{"hello":"world"}',
      isBase64Encoded: false,
    });
    expect(event.headers['X-Multi']).toBe('two');
    expect(event.multiValueHeaders['X-Multi']).toEqual(['one', 'two']);
    expect(event.headers['X-Forwarded-For']).toBe('127.0.0.1');
    expect(event.headers['X-Amzn-Trace-Id']).toMatch(/^Root=1-[0-9a-f]{8}-[0-9a-f]{24}$/);
    expect(event.requestContext).toMatchObject({
      accountId: '000000000000',
      apiId: api.apiId,
      stage: 'prod',
      resourcePath: '/echo/{proxy+}',
      httpMethod: 'POST',
      path: '/prod/echo/a%20b/c',
      requestId: reply.headers['x-amzn-requestid'],
      identity: {
        sourceIp: '127.0.0.1',
        userArn: developer.principal.arn,
        accountId: '000000000000',
        caller: developer.principal.userId,
        accessKey: developer.accessKeyId,
        userAgent: 'emulator-test/1.0',
      },
    });
    // The function's context: its ARN in the local account, the route's 29 s as its clock.
    expect(context.invokedFunctionArn).toBe(
      'arn:aws:lambda:us-east-2:000000000000:function:test-control-plane-proxy',
    );
    expect(context.awsRequestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(remaining).toBeLessThanOrEqual(29_000);
    expect(remaining).toBeGreaterThan(28_000);
  });

  test('bodies of a binary media type arrive base64-encoded, others as text', async () => {
    const bytes = Buffer.from([0, 159, 146, 150]).toString('latin1');
    await sign({ method: 'POST', path: '/echo/bin', headers: { 'content-type': 'image/png' }, body: bytes });
    expect(seen!.event.isBase64Encoded).toBe(true);
    expect(Buffer.from(seen!.event.body ?? '', 'base64')).toEqual(Buffer.from(bytes));
    await sign({ method: 'GET', path: '/echo/none' });
    expect(seen!.event).toMatchObject({
      body: null,
      isBase64Encoded: false,
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
    });
  });
});

describe('answers', () => {
  test('multi-value response headers merged, a default content type, the request id', async () => {
    const reply = await sign({ path: '/echo/cookies' });
    expect(reply.status).toBe(201);
    expect(reply.text).toBe('made');
    expect(reply.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(reply.rawHeaders.filter((h) => h === 'x-one')).toHaveLength(1);
    expect(reply.headers['content-type']).toBe('application/json');
    expect(reply.headers['x-amzn-requestid']).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('a base64 result becomes bytes only for an Accept among the binary media types', async () => {
    const asBytes = await sign({ path: '/echo/binary', headers: { accept: 'application/octet-stream' } });
    expect(asBytes.body).toEqual(Buffer.from([0, 1, 254, 255]));
    const asText = await sign({ path: '/echo/binary', headers: { accept: 'application/json' } });
    expect(asText.text).toBe(Buffer.from([0, 1, 254, 255]).toString('base64'));
  });

  test('a mock integration answers an empty 200 without authentication', async () => {
    const reply = await rawRequest(`${api.url}/open`);
    expect([reply.status, reply.text]).toEqual([200, '']);
  });

  test('gateway errors: wrong stage, unknown resource, unsigned IAM route', async () => {
    const origin = api.url.replace(/\/prod$/, '');
    expect(await rawRequest(`${origin}/beta/open`)).toMatchObject({
      status: 403,
      json: { message: 'Forbidden' },
    });
    const unknown = await sign({ path: '/nowhere' });
    expect([unknown.status, unknown.json, unknown.headers['x-amzn-errortype']]).toEqual([
      403,
      { message: 'Missing Authentication Token' },
      'MissingAuthenticationTokenException',
    ]);
    const unsigned = await rawRequest(`${api.url}/echo/x`);
    expect([unsigned.status, unsigned.json]).toEqual([403, { message: 'Missing Authentication Token' }]);
  });

  test('a crashing function or a malformed result is a 502 "Internal server error"', async () => {
    for (const path of ['/echo/crash', '/echo/malformed']) {
      const reply = await sign({ path });
      expect([reply.status, reply.json]).toEqual([502, { message: 'Internal server error' }]);
    }
  });

  test('past the integration timeout: 504 "Endpoint request timed out"', async () => {
    const reply = await rawRequest(`${api.url}/slow`);
    expect([reply.status, reply.json]).toEqual([504, { message: 'Endpoint request timed out' }]);
  });
});

describe('response streaming', () => {
  test('status, headers and the first chunk arrive while the function is still writing', async () => {
    const received: string[] = [];
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${api.url}/stream/go`, (res) => {
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          received.push(chunk);
          // Only now may the function go on: a buffering emulator would never get here.
          if (received.length === 1) releaseStream();
        });
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(207);
    expect(received[0]).toBe('first;');
    expect(received.join('')).toBe('first;second;last');
  });

  test('a function that fails before its prelude is a 502; one that stays silent hits the window (504)', async () => {
    const crashed = await rawRequest(`${api.url}/stream/crash`);
    expect([crashed.status, crashed.json]).toEqual([502, { message: 'Internal server error' }]);
    const silent = await rawRequest(`${api.url}/stream/silent`);
    expect([silent.status, silent.json]).toEqual([504, { message: 'Endpoint request timed out' }]);
  });
});

describe('stage throttling', () => {
  test('a token bucket of burstLimit refilled at rateLimit/s: 429 over it, before the function runs', async () => {
    let clock = 1_000_000;
    let invocations = 0;
    const throttled = await startApiGatewayEmulator({
      api: { ...definition, throttling: { rateLimit: 2, burstLimit: 3 } },
      region: REGION,
      accountId: '000000000000',
      credentials,
      now: () => clock,
      lambdas: {
        'control-plane-proxy': { kind: 'buffered', handler: echo },
        aggregator: {
          kind: 'buffered',
          handler: async () => {
            invocations += 1;
            return { statusCode: 200, body: 'ok' };
          },
        },
        'inference-stream-proxy': { kind: 'streaming', handler: streamer },
      },
    });
    try {
      const call = () => rawRequest(`${throttled.url}/slow`);
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await call()).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const refused = await call();
      expect(refused.status).toBe(429);
      expect(refused.headers['x-amzn-errortype']).toBe('TooManyRequestsException');
      expect(refused.json).toEqual({ message: 'Too Many Requests' });
      expect(invocations).toBe(3);
      // Half a second refills one token at 2/s; a second refills two, never beyond the burst.
      clock += 500;
      expect((await call()).status).toBe(200);
      expect((await call()).status).toBe(429);
      clock += 60_000;
      const after = [];
      for (let i = 0; i < 4; i++) after.push((await call()).status);
      expect(after).toEqual([200, 200, 200, 429]);
    } finally {
      await throttled.close();
    }
  });
});

describe('the global API web ACL (platform rules 0 and 1)', () => {
  async function withWaf(
    waf: { rateLimitPerIp: number; maxBodySizeBytes: number },
    run: (api: ApiGatewayEmulator, logs: AccessLogEntry[], advance: (ms: number) => void) => Promise<void>,
  ): Promise<void> {
    let clock = 5_000_000;
    const logs: AccessLogEntry[] = [];
    const guarded = await startApiGatewayEmulator({
      api: definition,
      region: REGION,
      accountId: '000000000000',
      credentials,
      now: () => clock,
      waf,
      onAccessLog: (entry) => logs.push(entry),
      lambdas: {
        'control-plane-proxy': { kind: 'buffered', handler: echo },
        aggregator: { kind: 'buffered', handler: async () => ({ statusCode: 200, body: 'ok' }) },
        'inference-stream-proxy': { kind: 'streaming', handler: streamer },
      },
    });
    try {
      await run(guarded, logs, (ms) => (clock += ms));
    } finally {
      await guarded.close();
    }
  }
  const post = (api: ApiGatewayEmulator, path: string, bytes: number) =>
    rawRequest(`${api.url.slice(0, -'/prod'.length)}${path}`, {
      method: 'POST',
      body: Buffer.alloc(bytes, 0x61),
    });

  test('a body over the cap is blocked (403 Forbidden) except under /<stage>/inference/, after decoding and normalizing', async () => {
    await withWaf({ rateLimitPerIp: 1_000, maxBodySizeBytes: 100 }, async (api, logs) => {
      const blocked = await post(api, '/prod/open', 101);
      expect([blocked.status, blocked.json, blocked.headers['x-amzn-errortype']]).toEqual([
        403,
        { message: 'Forbidden' },
        'ForbiddenException',
      ]);
      expect(logs.at(-1)?.wafRule).toBe('BodySizeLimitNonInference');
      // At the cap it passes WAF (and reaches routing: POST /open is no method of the API).
      expect((await post(api, '/prod/open', 100)).headers['x-amzn-errortype']).toBe(
        'MissingAuthenticationTokenException',
      );
      for (const path of ['/prod/inference/m', '/prod/x/../inference/m', '/prod/%69nference/m']) {
        const exempt = await post(api, path, 5_000);
        expect([path, exempt.headers['x-amzn-errortype']]).toEqual([
          path,
          'MissingAuthenticationTokenException',
        ]);
      }
      // A path that only starts like the inference prefix before normalization is not exempt.
      await post(api, '/prod/inference/../open', 101);
      expect(logs.at(-1)?.wafRule).toBe('BodySizeLimitNonInference');
    });
  });

  test('more than the per-IP limit within 5 minutes is blocked until the window moves on', async () => {
    await withWaf({ rateLimitPerIp: 3, maxBodySizeBytes: 100 }, async (api, logs, advance) => {
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await rawRequest(`${api.url}/open`)).status);
      expect(statuses).toEqual([200, 200, 200, 403]);
      expect(logs.at(-1)?.wafRule).toBe('RateLimitPerIp');
      advance(299_000);
      expect((await rawRequest(`${api.url}/open`)).status).toBe(403);
      advance(301_000);
      expect((await rawRequest(`${api.url}/open`)).status).toBe(200);
    });
  });
});

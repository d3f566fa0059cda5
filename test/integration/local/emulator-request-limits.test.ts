/**
 * API Gateway's request-size quotas in the emulator: URL length by endpoint type (8192 edge-optimized,
 * 10240 regional), 10240 bytes of request line plus header values, 1600 bytes of method ARN on
 * authorized methods, and what Node's parser cannot read. Every refusal is a small JSON `{"message"}`
 * that echoes nothing of the request, and arrives whole even while the client is still uploading.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { ApiDefinition } from '../../../contracts/api-routes.js';
import {
  startApiGatewayEmulator,
  type ApiGatewayEmulator,
} from '../../../local/api-gateway-emulator/index.js';
import {
  METHOD_ARN_LIMIT_BYTES,
  PARSER_MAX_HEAD_BYTES,
  URL_LENGTH_LIMIT,
} from '../../../local/api-gateway-emulator/request-limits.js';
import { expectRefusal } from '../../fuzz/edge/support/error-answers.js';
import { lambdaIntegration, rawRequest, signedRequest, TEST_ACCOUNT_CREDENTIALS } from './support.js';

const REGION = 'us-east-1';
const credentials = TEST_ACCOUNT_CREDENTIALS;

const definition = (endpointType: ApiDefinition['endpointType']): ApiDefinition => ({
  id: 'regional',
  title: 'request limits test API',
  version: '1.0.0',
  endpointType,
  stage: 'prod',
  throttling: { rateLimit: 10_000, burstLimit: 10_000 },
  routes: [
    {
      path: '/signed/{proxy+}',
      method: 'GET',
      operationId: 'signed',
      auth: 'iam',
      integration: lambdaIntegration('control-plane-proxy', 29),
    },
    {
      path: '/open/{proxy+}',
      method: 'GET',
      operationId: 'open',
      auth: 'none',
      integration: { type: 'mock', statusCode: 200 },
    },
  ],
});

const apis: Partial<Record<ApiDefinition['endpointType'], ApiGatewayEmulator>> = {};

beforeAll(async () => {
  for (const endpointType of ['EDGE', 'REGIONAL'] as const) {
    apis[endpointType] = await startApiGatewayEmulator({
      api: definition(endpointType),
      region: REGION,
      accountId: '000000000000',
      credentials,
      lambdas: {
        'control-plane-proxy': {
          kind: 'buffered',
          handler: async () => ({ statusCode: 200, body: '{"ok":true}' }),
        },
      },
    });
  }
});
afterAll(async () => {
  await Promise.all(Object.values(apis).map((api) => api.close()));
});

function api(endpointType: ApiDefinition['endpointType']): ApiGatewayEmulator {
  const found = apis[endpointType];
  if (found === undefined) throw new Error(`no ${endpointType} API`);
  return found;
}

/** The path below the stage that makes the deployed URL (`https://<api domain>/prod/…`) `length` long. */
function pathForUrlLength(emulator: ApiGatewayEmulator, length: number): string {
  const prefix = `https://${emulator.apiId}.execute-api.${REGION}.amazonaws.com/prod/open/`;
  return `/open/${'u'.repeat(length - prefix.length)}`;
}

describe('URL length (characters of https://<api domain>/<stage>/…)', () => {
  test.each([
    ['EDGE', URL_LENGTH_LIMIT.EDGE],
    ['REGIONAL', URL_LENGTH_LIMIT.REGIONAL],
  ] as const)('%s: over %d characters is 414', async (endpointType, limit) => {
    const emulator = api(endpointType);
    const over = await rawRequest(`${emulator.url}${pathForUrlLength(emulator, limit + 1)}`);
    expectRefusal(over, 414, 'Request-URI Too Long');
  });

  test('an edge-optimized URL of exactly 8192 characters is served', async () => {
    const emulator = api('EDGE');
    const at = await rawRequest(`${emulator.url}${pathForUrlLength(emulator, URL_LENGTH_LIMIT.EDGE)}`);
    expect(at.status).toBe(200);
  });

  test.each([20_000, 70_000])('a %d-character URL is 414 JSON, not a parser error or a reset', async (n) => {
    const emulator = api('REGIONAL');
    expectRefusal(await rawRequest(`${emulator.url}/open/${'a'.repeat(n)}`), 414, 'Request-URI Too Long');
  });
});

describe('request line and header values over 10240 bytes', () => {
  test('431 JSON', async () => {
    const reply = await rawRequest(`${api('REGIONAL').url}/open/x`, {
      headers: [['x-padding', 'p'.repeat(10_300)]],
    });
    expectRefusal(reply, 431, 'Request Header Fields Too Large');
  });

  test('just under the quota is served', async () => {
    const reply = await rawRequest(`${api('REGIONAL').url}/open/x`, {
      headers: [['x-padding', 'p'.repeat(9_000)]],
    });
    expect(reply.status).toBe(200);
  });
});

describe('method ARN of an authorized method over 1600 bytes', () => {
  test('a signed request whose path makes the ARN too long is 414; the same path on an open route is served', async () => {
    const emulator = api('REGIONAL');
    const arnPrefix = `arn:aws:execute-api:${REGION}:000000000000:${emulator.apiId}/prod/GET/signed/`;
    const long = 'p'.repeat(METHOD_ARN_LIMIT_BYTES - arnPrefix.length + 1);
    const signed = await signedRequest(emulator.url, {
      path: `/signed/${long}`,
      region: REGION,
      credentials: credentials.developer,
    });
    expectRefusal(signed, 414, 'Request-URI Too Long');
    const fits = await signedRequest(emulator.url, {
      path: `/signed/${long.slice(1)}`,
      region: REGION,
      credentials: credentials.developer,
    });
    expect(fits.status).toBe(200);
    expect((await rawRequest(`${emulator.url}/open/${long}`)).status).toBe(200);
  });
});

describe('requests Node cannot parse', () => {
  test('a head over the parser limit is 431 JSON, received whole while the body is still being sent', async () => {
    const reply = await rawRequest(`${api('REGIONAL').url}/open/x`, {
      method: 'POST',
      headers: [['x-padding', 'p'.repeat(PARSER_MAX_HEAD_BYTES + 1)]],
      body: Buffer.alloc(4 * 1024 * 1024, 0x61),
    });
    expectRefusal(reply, 431, 'Request Header Fields Too Large');
  });

  test('bytes that are not HTTP are 400 JSON', async () => {
    const { port } = new URL(api('REGIONAL').url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (text += chunk));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer.endsWith('\r\n\r\n{"message":"Bad Request"}')).toBe(true);
  });
});

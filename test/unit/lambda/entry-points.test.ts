/**
 * The ten Lambda entry points share one runtime (lambda/shared/entry-point.ts). Imported and invoked
 * with an empty environment, none throws at import; each HTTP handler answers 500
 * `{"message":"Internal server error"}`; the authorizer fails with an error API Gateway answers 500 (never
 * a cached 401); each custom-resource or scheduled handler fails its invocation with the configuration
 * error. Every one logs the problem once, with the invocation's Lambda context on the line.
 */
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import type { APIGatewayProxyResult, Context } from 'aws-lambda';
import { EnvironmentError } from '../../../contracts/env/reader.js';
import {
  invokeStreamingHandler,
  readHttpIntegrationResponse,
} from '../../../local/api-gateway-emulator/response-stream.js';
import { lambdaContext } from '../../support/lambda-context.js';
import { apiEvent, customResourceEvent, restEvent } from './events.js';

const INTERNAL_ERROR = { statusCode: 500, body: '{"message":"Internal server error"}' };

let lines: Record<string, unknown>[] = [];
const saved = process.env;

beforeAll(() => {
  process.env = {};
  // Powertools writes INFO to stdout and WARN/ERROR to stderr, one JSON object per line.
  const capture = (chunk: string | Uint8Array): boolean => {
    for (const line of String(chunk).split('\n')) {
      if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
    }
    return true;
  };
  jest.spyOn(process.stdout, 'write').mockImplementation(capture);
  jest.spyOn(process.stderr, 'write').mockImplementation(capture);
});

afterAll(() => {
  jest.restoreAllMocks();
  process.env = saved;
});

/** Invokes twice: the configuration error is logged once, with the first invocation's context. */
async function invokeTwice<R>(
  handler: (context: Context) => Promise<R>,
): Promise<{ results: PromiseSettledResult<R>[]; logged: Record<string, unknown>[] }> {
  lines = [];
  const results = [
    await Promise.allSettled([handler(lambdaContext({ awsRequestId: 'first-invocation' }))]),
    await Promise.allSettled([handler(lambdaContext({ awsRequestId: 'second-invocation' }))]),
  ].flat();
  return { results, logged: lines.filter((l) => String(l['message']).startsWith('invalid configuration')) };
}

function expectOneConfigurationLog(logged: Record<string, unknown>[], variable: string): void {
  expect(logged).toHaveLength(1);
  expect(logged[0]).toMatchObject({ level: 'ERROR', function_request_id: 'first-invocation' });
  expect(String(logged[0]?.['error_message'])).toContain(`${variable}: required`);
}

describe('HTTP handlers answer 500 {"message":"Internal server error"}', () => {
  const cases: [string, string, (context: Context) => Promise<APIGatewayProxyResult>][] = [
    [
      'control-plane-proxy',
      'MODE',
      async (context) =>
        (await import('../../../lambda/control-plane-proxy/index.js')).handler(
          restEvent({ url: '/api/v1/jobs' }),
          context,
        ),
    ],
    [
      'aggregator',
      'REGIONAL_APIS',
      async (context) =>
        (await import('../../../lambda/aggregator/index.js')).handler(
          apiEvent('GET', '/api/v1/global/status'),
          context,
        ),
    ],
    [
      'studio-login',
      'STUDIO_DOMAIN_ID',
      async (context) =>
        (await import('../../../lambda/studio-login/index.js')).handler(
          apiEvent('GET', '/studio/login'),
          context,
        ),
    ],
    [
      'analytics-admin',
      'APPLICATIONS_TABLE',
      async (context) =>
        (await import('../../../lambda/analytics-admin/index.js')).handler(
          {
            httpMethod: 'GET',
            resource: '/applications',
            path: '/applications',
            pathParameters: null,
            body: null,
            isBase64Encoded: false,
          },
          context,
        ),
    ],
    [
      'analytics-events',
      'APPLICATIONS_TABLE',
      async (context) =>
        (await import('../../../lambda/analytics-events/index.js')).handler(
          {
            httpMethod: 'POST',
            pathParameters: null,
            body: null,
            isBase64Encoded: false,
            requestContext: {},
          },
          context,
        ),
    ],
    [
      'analytics-warehouse-setup',
      'EVENTS_STREAM_NAME',
      async (context) =>
        (await import('../../../lambda/analytics-warehouse-setup/index.js')).handler(
          { httpMethod: 'POST', resource: '/redshift/setup' },
          context,
        ),
    ],
  ];

  test.each(cases)('%s', async (_name, variable, invoke) => {
    const { results, logged } = await invokeTwice(invoke);
    for (const result of results) {
      expect(result).toMatchObject({ status: 'fulfilled', value: INTERNAL_ERROR });
      expect(result.status === 'fulfilled' && result.value.multiValueHeaders).toEqual({
        'content-type': ['application/json'],
      });
    }
    expectOneConfigurationLog(logged, variable);
  });

  test('inference-stream-proxy (streamed)', async () => {
    const { handler } = await import('../../../lambda/inference-stream-proxy/index.js');
    const { results, logged } = await invokeTwice(async (context) => {
      const invocation = invokeStreamingHandler(handler, restEvent({ url: '/inference/m/x' }), context);
      const { prelude, body } = await readHttpIntegrationResponse(invocation.output);
      let text = '';
      for await (const chunk of body as AsyncIterable<Buffer>) text += Buffer.from(chunk).toString('utf8');
      await invocation.done;
      return { prelude, text };
    });
    for (const result of results) {
      expect(result).toMatchObject({
        status: 'fulfilled',
        value: {
          prelude: { statusCode: 500, headers: { 'content-type': 'application/json' } },
          text: INTERNAL_ERROR.body,
        },
      });
    }
    expectOneConfigurationLog(logged, 'MODE');
  });
});

test('the authorizer fails with an error API Gateway answers 500, never a cached 401', async () => {
  const authorizer = await import('../../../lambda/analytics-authorizer/index.js');
  const { results, logged } = await invokeTwice((context) =>
    authorizer.handler({ methodArn: 'arn', headers: {} }, context),
  );
  for (const result of results) {
    expect(result.status).toBe('rejected');
    const reason = (result as PromiseRejectedResult).reason as Error;
    expect(reason).toBeInstanceOf(authorizer.AuthorizerUnavailableError);
    expect(reason.message).not.toBe('Unauthorized');
  }
  expectOneConfigurationLog(logged, 'APPLICATIONS_TABLE');
});

describe('custom-resource and scheduled handlers fail the invocation with the configuration error', () => {
  test('signing-key-rotation (Secrets Manager rotation)', async () => {
    const { handler } = await import('../../../lambda/signing-key-rotation/index.js');
    const { results, logged } = await invokeTwice((context) =>
      handler({ Step: 'createSecret', SecretId: 'arn:secret', ClientRequestToken: 'token' }, context),
    );
    for (const result of results) {
      expect(result.status).toBe('rejected');
      expect((result as PromiseRejectedResult).reason).toBeInstanceOf(EnvironmentError);
      expect(((result as PromiseRejectedResult).reason as EnvironmentError).problems).toEqual([
        expect.stringContaining('AWS_REGION: required'),
      ]);
    }
    expectOneConfigurationLog(logged, 'AWS_REGION');
  });

  test('internal-ca (CloudFormation custom resource and the scheduled renewal)', async () => {
    const { handler } = await import('../../../lambda/internal-ca/index.js');
    const { results, logged } = await invokeTwice((context) =>
      handler(customResourceEvent('Create', { Kind: 'CertificateAuthority', SecretId: 'gco/ca' }), context),
    );
    const renewal = await handler(
      {
        Kind: 'CertificateRenewal',
        CertificateArn: 'arn:aws:acm:us-east-1:111122223333:certificate/x',
        CaSecretId: 'gco/ca',
        KeyPairSecretId: 'gco/kp',
        DnsNames: ['backend.gco.gco.internal'],
      },
      lambdaContext(),
    ).catch((error: unknown) => error);
    for (const reason of [...results.map((r) => (r as PromiseRejectedResult).reason), renewal]) {
      expect(reason).toBeInstanceOf(EnvironmentError);
    }
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expectOneConfigurationLog(logged, 'AWS_REGION');
  });
});

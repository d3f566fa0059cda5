/**
 * Generated requests to the proxy routes of the global and the regional API — `/api/v1/{proxy+}` (the
 * control-plane proxy) and `/inference/{proxy+}` (the streaming inference proxy), every method each
 * API defines for them — SigV4-signed, through the emulator, the proxy, the accelerator or the ALB, to
 * a backend that verifies the envelope. A request the edge must refuse (among them an x-*-target-region
 * header and a GET with a body) gets its documented small JSON
 * answer and reaches nothing; any other request reaches the backend exactly once, with the path as
 * sent, the query rebuilt from API Gateway's decoded values, the body API Gateway handed over, the
 * caller's headers and a valid envelope. Nothing is ever a 5xx: the backend never fails, so a 5xx could
 * only be the edge's own.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { MAX_REQUEST_BODY_BYTES } from '../../../lambda/inference-stream-proxy/index.js';
import { MESSAGES } from '../../../lambda/shared/errors.js';
import { bodyOnBodilessMethod } from '../../../lambda/shared/proxy-request.js';
import {
  globalApiDefinition,
  regionalApiDefinition,
  type ApiDefinition,
  type RouteHandler,
} from '../../../contracts/api-routes.js';
import type { Reply } from '../../integration/local/support.js';
import { startEdgeUnderTest, type EdgeCall, type EdgeUnderTest } from './support/edge-under-test.js';
import { expectRefusal } from './support/error-answers.js';
import {
  backendTarget,
  bodyBytes,
  dotSegment,
  extraHeaders,
  forwardedBytes,
  pathSegment,
  queryParameters,
  requestBody,
  targetRegionHeader,
  targetRegionMessage,
  type GeneratedBody,
} from './support/http-inputs.js';
import { headerValues } from './support/recording-backend.js';
import { fuzzParameters } from './support/settings.js';

const REGION = 'us-east-1';
/** Runs per API and route family; each run is one request. */
const RUNS = 120;

let edge: EdgeUnderTest;
beforeAll(async () => {
  edge = await startEdgeUnderTest([REGION]);
}, 30_000);
afterAll(() => edge?.close());

interface RouteFamily {
  handler: Extract<RouteHandler, 'control-plane-proxy' | 'inference-stream-proxy'>;
  prefix: string;
  /** Large body sizes to try (bytes of padding). */
  largeSizes: readonly number[];
}

const CONTROL_PLANE: RouteFamily = {
  handler: 'control-plane-proxy',
  prefix: '/api/v1/',
  largeSizes: [70_000],
};
const INFERENCE: RouteFamily = {
  handler: 'inference-stream-proxy',
  prefix: '/inference/',
  // Over the web ACL's cap (inference is exempt), and over the inference body limit.
  largeSizes: [70_000, MAX_REQUEST_BODY_BYTES + 1],
};

/** The methods of a family's route in a definition: taken from it, so a new method is fuzzed too. */
function methodsOf(api: ApiDefinition, family: RouteFamily): string[] {
  return api.routes
    .filter((r) => r.integration.type === 'lambda' && r.integration.handler === family.handler)
    .map((r) => r.method);
}

type Mutation =
  | { kind: 'none' }
  | { kind: 'dot-segment'; at: number; segment: string }
  | { kind: 'target-region'; header: [string, string] }
  | { kind: 'long-path' };

interface ProxyCase {
  method: string;
  segments: string[];
  query: [string, string][];
  headers: [string, string][];
  body: GeneratedBody | null;
  mutation: Mutation;
}

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 8, arbitrary: fc.constant({ kind: 'none' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('dot-segment' as const), at: fc.nat(4), segment: dotSegment }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('target-region' as const), header: targetRegionHeader }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'long-path' as const }) },
);

function proxyCase(methods: readonly string[], family: RouteFamily): fc.Arbitrary<ProxyCase> {
  return fc.record({
    method: fc.constantFrom(...methods),
    segments: fc.array(pathSegment, { minLength: 1, maxLength: 4 }),
    query: queryParameters,
    headers: extraHeaders,
    body: fc.option(requestBody(family.largeSizes), { freq: 2 }),
    mutation,
  });
}

/** HEAD carries no body. */
const bodyOf = (c: ProxyCase): GeneratedBody | null => (c.method === 'HEAD' ? null : c.body);

function pathOf(family: RouteFamily, c: ProxyCase): string {
  const segments = [...c.segments];
  if (c.mutation.kind === 'dot-segment') {
    segments.splice(Math.min(c.mutation.at, segments.length - 1), 0, c.mutation.segment);
  }
  // Makes the method ARN longer than API Gateway's 1600 bytes.
  if (c.mutation.kind === 'long-path') segments.push('l'.repeat(1_700));
  return `${family.prefix}${segments.join('/')}`;
}

function callOf(family: RouteFamily, c: ProxyCase): EdgeCall {
  const body = bodyOf(c);
  const headers: Record<string, string> = Object.fromEntries(c.headers);
  if (body?.contentType !== undefined) headers['content-type'] = body.contentType;
  return {
    method: c.method,
    path: pathOf(family, c),
    query: Object.fromEntries(c.query),
    headers,
    ...(c.mutation.kind === 'target-region' ? { extraHeaders: [c.mutation.header] } : {}),
    ...(body !== null ? { body: bodyBytes(body) } : {}),
  };
}

/** The documented refusal of this request, in the order the hops check (undefined: it is forwarded). */
function refusalOf(
  api: 'global' | 'regional',
  family: RouteFamily,
  c: ProxyCase,
): [number, string] | undefined {
  const body = bodyOf(c);
  const size = body === null ? 0 : bodyBytes(body).length;
  // The web ACL (global API, not /inference), API Gateway's method ARN limit, then the proxy in its order.
  if (api === 'global' && family === CONTROL_PLANE && size > edge.config.waf.maxBodySizeBytes) {
    return [403, 'Forbidden'];
  }
  if (c.mutation.kind === 'long-path') return [414, 'Request-URI Too Long'];
  if (c.mutation.kind === 'target-region') return [400, targetRegionMessage(c.mutation.header[0])];
  if (body?.kind === 'binary-type') return [400, MESSAGES.base64Body];
  if (c.method === 'GET' && size > 0) return [400, bodyOnBodilessMethod('GET')];
  if (family === INFERENCE && size > MAX_REQUEST_BODY_BYTES) return [413, MESSAGES.bodyTooLarge];
  if (c.mutation.kind === 'dot-segment') return [400, MESSAGES.badPath];
  return undefined;
}

async function check(
  api: 'global' | 'regional',
  family: RouteFamily,
  c: ProxyCase,
  send: (call: EdgeCall) => Promise<Reply>,
): Promise<void> {
  const seenBefore = edge.backend.received.length;
  const reply = await send(callOf(family, c));
  expect(reply.status).toBeLessThan(500);
  const refusal = refusalOf(api, family, c);
  if (refusal !== undefined) {
    expectRefusal(reply, ...refusal, c.method);
    expect(edge.backend.received.length).toBe(seenBefore);
    return;
  }
  expect(reply.status).toBe(200);
  const received = edge.backend.received.slice(seenBefore);
  expect(received).toHaveLength(1);
  const [seen] = received;
  const body = bodyOf(c);
  expect(seen).toMatchObject({
    requestId: reply.headers['x-amzn-requestid'],
    method: c.method,
    target: backendTarget(pathOf(family, c), c.query),
    body: body === null ? Buffer.alloc(0) : forwardedBytes(bodyBytes(body)),
    envelope: { ok: true },
  });
  for (const [name, value] of c.headers) expect(headerValues(seen, name)).toEqual([value]);
}

describe.each([
  ['global', globalApiDefinition],
  ['regional', regionalApiDefinition],
] as const)('%s API', (api, definition) => {
  test.each([
    ['/api/v1/{proxy+}', CONTROL_PLANE],
    ['/inference/{proxy+}', INFERENCE],
  ] as const)(
    `%s, every method: refused as documented or forwarded exactly (${RUNS} runs)`,
    async (_route, family) => {
      const send = (call: EdgeCall) => (api === 'global' ? edge.global(call) : edge.regional(REGION, call));
      const methods = methodsOf(definition(edge.config), family);
      expect(methods.length).toBeGreaterThan(0);
      await fc.assert(
        fc.asyncProperty(proxyCase(methods, family), (c) => check(api, family, c, send)),
        fuzzParameters(RUNS),
      );
    },
    120_000,
  );
});

/**
 * Generated requests to the global API's aggregate routes (every `/api/v1/global/*` operation the
 * definition has), SigV4-signed, through the emulator and the aggregator, which discovers two regional
 * APIs in SSM and calls each with its own role; their proxies reach a backend that verifies the
 * envelope. A refusal is the documented small JSON answer and calls no region; anything else is a 200
 * that names both regions, after each region received exactly the regional route, the caller's query
 * (jobs) or body (delete) as API Gateway handed them over, with a valid envelope.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { globalApiDefinition, type RouteDefinition } from '../../../contracts/api-routes.js';
import { startEdgeUnderTest, type EdgeCall, type EdgeUnderTest } from './support/edge-under-test.js';
import { expectRefusal } from './support/error-answers.js';
import {
  backendTarget,
  bodyBytes,
  extraHeaders,
  forwardedBytes,
  queryParameters,
  rarely,
  requestBody,
  targetRegionHeader,
  type GeneratedBody,
} from './support/http-inputs.js';
import { fuzzParameters } from './support/settings.js';

const REGIONS = ['us-east-1', 'us-west-2'];
/** Runs per aggregate operation; each run is one request (and one call per region). */
const RUNS = 60;

let edge: EdgeUnderTest;
beforeAll(async () => {
  edge = await startEdgeUnderTest(REGIONS);
}, 30_000);
afterAll(() => edge?.close());

function aggregateRoutes(): RouteDefinition[] {
  return globalApiDefinition(edge.config).routes.filter(
    (r) => r.integration.type === 'lambda' && r.integration.handler === 'aggregator',
  );
}

interface AggregateCase {
  query: [string, string][];
  headers: [string, string][];
  body: GeneratedBody | null;
  targetRegion: [string, string] | null;
}

const aggregateCase: fc.Arbitrary<AggregateCase> = fc.record({
  query: queryParameters,
  headers: extraHeaders,
  // Large: over the web ACL's 64 KiB body cap.
  body: fc.option(requestBody([70_000]), { freq: 2 }),
  targetRegion: rarely(targetRegionHeader, 8),
});

/** What the aggregator makes of a body: forwarded (object), or its 400 (docs/aggregator.md). */
function bodyRefusal(body: GeneratedBody): string | undefined {
  if (body.kind === 'binary-type') return 'Base64-encoded bodies are not accepted';
  let parsed: unknown;
  try {
    parsed = JSON.parse(forwardedBytes(bodyBytes(body)).toString('utf8'));
  } catch {
    return 'The request body must be JSON';
  }
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
    ? undefined
    : 'The request body must be a JSON object';
}

function refusalOf(c: AggregateCase): [number, string] | undefined {
  if (c.body !== null && bodyBytes(c.body).length > edge.config.waf.maxBodySizeBytes)
    return [403, 'Forbidden'];
  if (c.targetRegion !== null) {
    return [
      400,
      `The ${c.targetRegion[0].toLowerCase()} header is not honoured: a request is served by the region of the API it is sent to. /api/v1/global/* already covers every region; for one region, call that region's regional API.`,
    ];
  }
  const refused = c.body === null ? undefined : bodyRefusal(c.body);
  return refused === undefined ? undefined : [400, refused];
}

/** The route each region is called with: `/api/v1/global/<name>` → `/api/v1/<name>`. */
const regionalPath = (route: RouteDefinition) => route.path.replace('/api/v1/global/', '/api/v1/');

async function check(route: RouteDefinition, c: AggregateCase): Promise<void> {
  const headers: Record<string, string> = Object.fromEntries(c.headers);
  if (c.body?.contentType !== undefined) headers['content-type'] = c.body.contentType;
  const call: EdgeCall = {
    method: route.method,
    path: route.path,
    query: Object.fromEntries(c.query),
    headers,
    ...(c.targetRegion !== null ? { extraHeaders: [c.targetRegion] } : {}),
    ...(c.body !== null ? { body: bodyBytes(c.body) } : {}),
  };
  const seenBefore = edge.backend.received.length;
  const reply = await edge.global(call);
  expect(reply.status).toBeLessThan(500);
  const refusal = refusalOf(c);
  if (refusal !== undefined) {
    expectRefusal(reply, ...refusal);
    expect(edge.backend.received.length).toBe(seenBefore);
    return;
  }
  expect(reply.status).toBe(200);
  expect(Object.keys(reply.json.regions)).toEqual(REGIONS);
  expect(reply.json.failed_regions).toEqual([]);
  const received = edge.backend.received.slice(seenBefore);
  expect(received).toHaveLength(REGIONS.length);
  // Only the jobs routes take the caller's query (GET) and body (DELETE) to the regions.
  const jobs = route.path === '/api/v1/global/jobs';
  const target =
    jobs && route.method === 'GET' ? backendTarget(regionalPath(route), c.query) : regionalPath(route);
  const body =
    jobs && route.method === 'DELETE' && c.body !== null ? forwardedBytes(bodyBytes(c.body)) : undefined;
  for (const seen of received) {
    expect(seen).toMatchObject({ method: route.method, target, envelope: { ok: true } });
    if (body !== undefined) expect(seen.body).toEqual(body);
  }
}

test(`every aggregate operation: refused as documented or fanned out exactly (${RUNS} runs each)`, async () => {
  const routes = aggregateRoutes();
  expect(routes.length).toBeGreaterThan(0);
  for (const route of routes) {
    await fc.assert(
      fc.asyncProperty(aggregateCase, (c) => check(route, c)),
      fuzzParameters(RUNS),
    );
  }
}, 120_000);

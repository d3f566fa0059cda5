/**
 * The edge refuses what API Gateway and the proxies refuse, end to end through the emulator: missing,
 * wrong, expired and wrongly scoped SigV4 signatures (403 before any function runs), the
 * X-SVC-Target-Region header and every other x-*-target-region (400 from the control-plane proxy and the
 * aggregator), a GET with a body (400 from the proxies), unknown routes —
 * while a correctly signed request goes all the way to the cluster through the accelerator or the
 * region's ALB.
 */
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { startLocalPlatform, type LocalPlatform } from '../../local/platform.js';
import { rawRequest, signedRequest } from '../integration/local/support.js';
import { edgeClient, type EdgeClient } from './support/edge.js';

// Starts the whole local platform (services, emulators, esbuild bundles) in this process: tests and
// hooks get an explicit budget here; the hook that starts it names its own.
jest.setTimeout(30_000);

let platform: LocalPlatform;
let edge: EdgeClient;
const REGION = 'us-east-1';

beforeAll(async () => {
  platform = await startLocalPlatform({ regions: [REGION], analytics: false });
  edge = edgeClient(platform);
}, 30_000);
afterAll(() => platform?.close());

describe('signed requests reach the cluster', () => {
  test('global API → control-plane proxy → accelerator → ALB → manifest-processor', async () => {
    const reply = await edge.global({ path: '/api/v1/status' });
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({ service: 'manifest-processor', region: REGION });
  });

  test('regional API → regional proxy (ALB host from SSM, verified with ELBv2) → health-monitor', async () => {
    const reply = await edge.regional(REGION, { path: '/api/v1/health' });
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({ region: REGION });
  });
});

describe('SigV4 refusals (403, nothing invoked)', () => {
  test('no signature at all', async () => {
    for (const url of [
      `${platform.endpoints.apis.global}/api/v1/jobs`,
      `${platform.endpoints.apis.regional[REGION]}/api/v1/jobs`,
    ]) {
      const reply = await rawRequest(url);
      expect([reply.status, reply.json]).toEqual([403, { message: 'Missing Authentication Token' }]);
    }
  });

  test('a signature made with the wrong secret key', async () => {
    const { accessKeyId } = platform.endpoints.credentials;
    const reply = await edge.global({
      path: '/api/v1/jobs',
      credentials: { accessKeyId, secretAccessKey: 'not-the-secret' },
    });
    expect(reply.status).toBe(403);
    expect(reply.headers['x-amzn-errortype']).toBe('InvalidSignatureException');
    expect(reply.json.message).toMatch(
      /^The request signature we calculated does not match the signature you provided/,
    );
  });

  test('an access key the platform does not know', async () => {
    const reply = await edge.global({
      path: '/api/v1/jobs',
      credentials: { accessKeyId: 'AKIAUNKNOWNUNKNOWN', secretAccessKey: 'x' },
    });
    expect([reply.status, reply.json]).toEqual([
      403,
      { message: 'The security token included in the request is invalid.' },
    ]);
  });

  test('a signature older than five minutes', async () => {
    const reply = await edge.global({
      path: '/api/v1/jobs',
      signingDate: new Date(Date.now() - 10 * 60_000),
    });
    expect(reply.status).toBe(403);
    expect(reply.json.message).toMatch(/^Signature expired: \d{8}T\d{6}Z is now earlier than/);
  });

  test('a signature scoped to another region than the API’s', async () => {
    const base = platform.endpoints.apis.regional[REGION] ?? '';
    const reply = await signedRequest(base, {
      path: '/api/v1/jobs',
      region: 'us-east-2',
      credentials: platform.endpoints.credentials,
    });
    expect([reply.status, reply.json]).toEqual([
      403,
      { message: 'Credential should be scoped to a valid region. ' },
    ]);
  });
});

describe('requests the edge refuses', () => {
  test.each(['X-SVC-Target-Region', 'X-GCO-Target-Region'])(
    '%s: 400 from the global and regional control-plane proxies and the aggregator',
    async (name) => {
      const header = { [name]: 'eu-west-1' };
      const global = await edge.global({ path: '/api/v1/jobs', headers: header });
      const regional = await edge.regional(REGION, { path: '/api/v1/jobs', headers: header });
      const aggregate = await edge.global({ path: '/api/v1/global/jobs', headers: header });
      for (const reply of [global, regional, aggregate]) {
        expect(reply.status).toBe(400);
        expect(reply.json.message).toContain(`The ${name.toLowerCase()} header is not honoured`);
      }
    },
  );

  test('a signed GET with a body: 400 naming the body, not the backend envelope 403', async () => {
    for (const reply of [
      await edge.global({ path: '/api/v1/jobs', body: '{"limit":5}' }),
      await edge.regional(REGION, { path: '/api/v1/jobs', body: '{"limit":5}' }),
    ]) {
      expect([reply.status, reply.json.message]).toEqual([
        400,
        "A GET request may not carry a body: send its parameters in the query string, or use the operation's POST/PUT/PATCH/DELETE method",
      ]);
    }
  });

  test('an unknown route, or a method the route does not have: 403 Missing Authentication Token', async () => {
    const unknown = await edge.global({ path: '/api/v2/jobs' });
    const wrongMethod = await edge.global({ method: 'POST', path: '/api/v1/global/health', body: '{}' });
    for (const reply of [unknown, wrongMethod]) {
      expect([reply.status, reply.json]).toEqual([403, { message: 'Missing Authentication Token' }]);
    }
  });
});

describe('the global API web ACL (waf.max_body_size_bytes, default 64 KiB)', () => {
  // Over the cap by JSON whitespace: a valid submission (unknown fields are refused by the services).
  const oversized = `{"manifests":[],"namespace":"svc-jobs"${' '.repeat(70 * 1024)}}`;

  test('a control-plane body over the cap is refused by WAF (403) before signature or function', async () => {
    const reply = await edge.global({
      method: 'POST',
      path: '/api/v1/manifests',
      headers: { 'content-type': 'application/json' },
      body: oversized,
    });
    expect([reply.status, reply.json]).toEqual([403, { message: 'Forbidden' }]);
  });

  test('the same body on an inference route passes WAF; the regional API has no web ACL', async () => {
    const inference = await edge.global({
      method: 'POST',
      path: '/inference/no-such-endpoint/v1/completions',
      headers: { 'content-type': 'application/json' },
      body: oversized,
    });
    // It reached the cluster: the inference proxy answers for the unknown endpoint.
    expect([inference.status, inference.json]).toEqual([
      404,
      { detail: "Inference endpoint 'no-such-endpoint' not found" },
    ]);
    const regional = await edge.regional(REGION, {
      method: 'POST',
      path: '/api/v1/manifests',
      headers: { 'content-type': 'application/json' },
      body: oversized,
    });
    expect([regional.status, regional.json.success]).toEqual([200, true]);
  });
});

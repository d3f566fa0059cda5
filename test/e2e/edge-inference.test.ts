/**
 * Streaming inference end to end: SigV4 → API Gateway emulator → inference-stream-proxy Lambda
 * (response streaming) → accelerator / regional ALB → inference-proxy service → the sample model server.
 * The model server produces token 2 onwards only once the client has received token 1, so the stream
 * can complete only if no hop buffers it — the first token provably arrives before the last is produced.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { signSigV4 } from '../../contracts/runtime/sigv4.js';
import { SAMPLE_ENDPOINT, startLocalPlatform, type LocalPlatform } from '../../local/platform.js';
import { tokenFor } from '../../local/model-server.js';
import { edgeClient, type EdgeClient } from './support/edge.js';
import { TokenGate } from './support/token-gate.js';

// Starts the whole local platform (services, emulators, esbuild bundles) in this process: tests and
// hooks get an explicit budget here; the hook that starts it names its own.
jest.setTimeout(30_000);

const REGION = 'us-east-1';
const PROMPT = 'stream me';
const TOKENS = 6;

const gate = new TokenGate();

let platform: LocalPlatform;
let edge: EdgeClient;

beforeAll(async () => {
  platform = await startLocalPlatform({
    regions: [REGION],
    analytics: false,
    modelServer: { pace: gate.pace },
  });
  edge = edgeClient(platform);
}, 30_000);
afterAll(() => platform?.close());

interface StreamResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  events: string[];
  /** Tokens the model server had produced when the client received the first event. */
  producedAtFirstEvent: number;
}

/** POSTs a streaming completion, signed, and collects the SSE events as they arrive. */
async function streamCompletion(base: string, region: string): Promise<StreamResult> {
  const body = JSON.stringify({ prompt: PROMPT, max_tokens: TOKENS, stream: true });
  const signed = await signSigV4({
    method: 'POST',
    baseUrl: base,
    path: `/inference/${SAMPLE_ENDPOINT}/v1/completions`,
    headers: { 'content-type': 'application/json' },
    body,
    region,
    credentials: platform.endpoints.credentials,
  });
  return new Promise((resolve, reject) => {
    const req = request(signed.url, { method: 'POST', headers: signed.headers }, (res) => {
      let buffer = '';
      const events: string[] = [];
      let producedAtFirstEvent = -1;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          events.push(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          if (events.length === 1) {
            producedAtFirstEvent = gate.produced;
            gate.firstTokenSeen();
          }
        }
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, events, producedAtFirstEvent }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const texts = (events: string[]) =>
  events
    .filter((e) => e !== 'data: [DONE]')
    .map((e) => (JSON.parse(e.slice('data: '.length)) as { choices: { text: string }[] }).choices[0]?.text);

describe('streaming inference', () => {
  test('global API: the first token reaches the client before the model produces the second', async () => {
    const result = await streamCompletion(platform.endpoints.apis.global, platform.endpoints.globalRegion);
    expect(result.status).toBe(200);
    expect(result.headers['content-type']).toBe('text/event-stream');
    expect(result.headers['x-gco-inference-target']).toBe('primary');
    expect(result.producedAtFirstEvent).toBe(1);
    expect(gate.timedOut).toBe(false);
    expect(texts(result.events)).toEqual(Array.from({ length: TOKENS }, (_, i) => tokenFor(PROMPT, i)));
    expect(result.events[result.events.length - 1]).toBe('data: [DONE]');
  });

  test('regional API: the same stream through the regional proxy and the region’s ALB', async () => {
    gate.reset();
    const result = await streamCompletion(platform.endpoints.apis.regional[REGION] ?? '', REGION);
    expect([result.status, result.producedAtFirstEvent, gate.timedOut]).toEqual([200, 1, false]);
    expect(texts(result.events)).toHaveLength(TOKENS);
  });

  test('an endpoint that does not exist, and a path outside its allowlist: 404 from the inference-proxy', async () => {
    const missing = await edge.global({
      method: 'POST',
      path: '/inference/no-such-model/v1/completions',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(missing.status).toBe(404);
    const outside = await edge.global({ path: `/inference/${SAMPLE_ENDPOINT}/admin` });
    expect(outside.status).toBe(404);
    const health = await edge.global({ path: `/inference/${SAMPLE_ENDPOINT}/health` });
    expect([health.status, health.json]).toEqual([200, { status: 'ok' }]);
  });
});

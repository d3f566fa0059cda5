/**
 * `gco inference invoke --stream` through the local platform: the model server produces token 2 onwards
 * only once gco's stdout has shown token 1, so the command can complete only if no hop — the edge's
 * streaming Lambda, the ALB, the inference-proxy, and gco itself — buffers. The first token provably
 * reaches the user before the model produces the last (causality, not timing).
 */
import { afterAll, beforeAll, expect, jest, test } from '@jest/globals';
import { tokenFor } from '../../../local/model-server.js';
import { SAMPLE_ENDPOINT, startLocalPlatform, type LocalPlatform } from '../../../local/platform.js';
import { gco } from '../../integration/cli/support/gco-process.js';
import { TokenGate } from '../support/token-gate.js';
import { localEnv } from './support/local-platform.js';

// Starts the whole local platform (services, emulators, esbuild bundles) and runs the real `gco`
// executable as child processes: tests and hooks get an explicit budget here; the hook that starts
// the platform and the longer tests name their own.
jest.setTimeout(30_000);

const PROMPT = 'stream through gco';
const TOKENS = 6;

const gate = new TokenGate();

let platform: LocalPlatform;
let env: Record<string, string>;

beforeAll(async () => {
  platform = await startLocalPlatform({
    regions: ['us-east-1'],
    analytics: false,
    modelServer: { pace: gate.pace },
  });
  env = localEnv(platform);
}, 30_000);
afterAll(() => platform?.close());

/** Runs gco and notes how many tokens the model had produced when `seen(stdout so far)` first held. */
async function invoke(args: string[], seen: (stdout: string) => boolean) {
  gate.reset();
  let producedAtFirstToken = -1;
  let stdout = '';
  const result = await gco(
    [
      'inference',
      'invoke',
      SAMPLE_ENDPOINT,
      '--prompt',
      PROMPT,
      '--max-tokens',
      String(TOKENS),
      '--stream',
      ...args,
    ],
    {
      env,
      onStdout: (chunk) => {
        stdout += chunk;
        if (producedAtFirstToken === -1 && seen(stdout)) {
          producedAtFirstToken = gate.produced;
          gate.firstTokenSeen();
        }
      },
    },
  );
  return { ...result, producedAtFirstToken };
}

const allTokens = Array.from({ length: TOKENS }, (_, i) => tokenFor(PROMPT, i));

test('-o json: the body as it streams (server-sent events, unchanged); token 1 is out before token 2 exists', async () => {
  const result = await invoke(['-o', 'json'], (out) => out.includes(JSON.stringify(allTokens[0])));
  expect(result.code).toBe(0);
  expect([result.producedAtFirstToken, gate.timedOut]).toEqual([1, false]);
  const events = result.stdout.split('\n\n').filter(Boolean);
  expect(events[events.length - 1]).toBe('data: [DONE]');
  const texts = events
    .slice(0, -1)
    .map((e) => (JSON.parse(e.slice('data: '.length)) as { choices: { text: string }[] }).choices[0]?.text);
  expect(texts).toEqual(allTokens);
});

test('-o table: the generated text, each token written as it arrives', async () => {
  const result = await invoke(['-o', 'table'], (out) => out.startsWith(allTokens[0] ?? '?'));
  expect(result.code).toBe(0);
  expect([result.producedAtFirstToken, gate.timedOut]).toEqual([1, false]);
  expect(result.stdout).toBe(`${allTokens.join('')}\n`);
});

test('an endpoint that does not exist: exit 1 with the inference-proxy’s 404', async () => {
  const result = await gco(['inference', 'invoke', 'no-such-model', '--prompt', 'x'], { env });
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(
    "HTTP 404 from POST /inference/no-such-model/v1/completions (global API): Inference endpoint 'no-such-model' not found",
  );
});

test('endpoint/NAME, as -o name prints it, names the endpoint; another kind exits 2 before any request', async () => {
  const answer = await gco(
    [
      '-o',
      'json',
      'inference',
      'invoke',
      `endpoint/${SAMPLE_ENDPOINT}`,
      '--prompt',
      PROMPT,
      '--max-tokens',
      '2',
    ],
    { env },
  );
  expect(answer.code).toBe(0);
  expect(JSON.parse(answer.stdout)).toHaveProperty('choices');
  const status = await gco(['-o', 'name', 'inference', 'status', `endpoint/${SAMPLE_ENDPOINT}`], { env });
  expect([status.code, status.stdout]).toEqual([0, `endpoint/${SAMPLE_ENDPOINT}\n`]);
  const wrong = await gco(['inference', 'invoke', `job/${SAMPLE_ENDPOINT}`, '--prompt', PROMPT], { env });
  expect(wrong.code).toBe(2);
  expect(wrong.stderr).toContain(
    `resource type mismatch: "job/${SAMPLE_ENDPOINT}" is a job, not an endpoint`,
  );
});

/**
 * What every error answer of the edge and of the analytics API must look like under generated input:
 * a small JSON object of the documented shape (`{"message": string}`; API Gateway's authorizer denial
 * `{"Message": string}`), with nothing of the machinery in it — no stack frame, file path, serialised
 * Buffer or JavaScript engine message.
 */
import { expect } from '@jest/globals';
import type { Reply } from '../../../integration/local/support.js';

/** A few KB at most: an error never carries a payload. */
const MAX_ERROR_BODY_BYTES = 2048;

const LEAKS: readonly (readonly [string, RegExp])[] = [
  ['a stack frame', /\bat (?:async )?[\w.<>]+ \(|\bat .+:\d+:\d+\)?/],
  ['a file path', /\/work\/|\/home\/|\/tmp\/|node_modules|\.[cm]?[jt]s:\d+/],
  ['a serialised Buffer', /"type"\s*:\s*"Buffer"/],
  [
    'an engine message',
    /Unexpected (?:token|end of JSON)|Maximum call stack|is not a function|Cannot read propert|is not defined|(?:Syntax|Type|Range|Reference)Error/,
  ],
];

/** Fails the run unless `reply` is a small JSON error with exactly one string field named as allowed. */
export function expectSafeError(reply: Reply, keys: readonly string[] = ['message']): void {
  expect(reply.headers['content-type']).toMatch(/^application\/json\b/);
  expect(reply.body.length).toBeLessThanOrEqual(MAX_ERROR_BODY_BYTES);
  const json: unknown = reply.json;
  expect(typeof json === 'object' && json !== null && !Array.isArray(json)).toBe(true);
  const fields = Object.entries(json as Record<string, unknown>);
  expect(fields).toHaveLength(1);
  const [name, value] = fields[0] ?? [];
  expect(keys).toContain(name);
  expect(typeof value).toBe('string');
  for (const [what, pattern] of LEAKS) {
    if (pattern.test(reply.text)) throw new Error(`error answer shows ${what}: ${reply.text.slice(0, 300)}`);
  }
}

/**
 * A refusal with a known status and message (the documented answer to a known mutation). An answer to
 * HEAD has the same status and headers but no body.
 */
export function expectRefusal(reply: Reply, status: number, message: string | RegExp, method = 'GET'): void {
  expect(reply.status).toBe(status);
  if (method === 'HEAD') {
    expect([reply.headers['content-type'], reply.body.length]).toEqual(['application/json', 0]);
    return;
  }
  expectSafeError(reply);
  if (typeof message === 'string') expect(reply.json.message).toBe(message);
  else expect(reply.json.message).toMatch(message);
}

/**
 * The properties every answer of a cluster service must have, whatever it was sent
 * (docs/api-limits.md, "Error answers"): never a 5xx the operation does not document; every 4xx is JSON
 * of the documented shape (422 HTTPValidationError, otherwise `{"detail": string}`), at most 12 KB, with
 * no stack trace, file path, serialised Buffer or engine message; a valid request is never refused; a
 * refusal the rules make certain happens.
 */
import type { RawReply } from './harness.js';
import type { Case } from './requests.js';
import type { Operation } from './operations.js';

/** "A few KB": the bound on every error body. */
const MAX_ERROR_BYTES = 12 * 1024;

const LEAKS: [string, RegExp][] = [
  ['stack trace', /\n\s+at |\bat [\w.<>]+ \(/],
  ['file path', /\/work\/|\/home\/|node_modules|file:\/\/|\.[cm]?[jt]s:\d+/],
  ['serialised Buffer', /"type":"Buffer"/],
  [
    'engine message',
    /Maximum call stack|is not valid JSON|Unexpected token|Unexpected end of JSON|Cannot read propert|is not a function|is not defined|undefined is not|TypeError|RangeError|SyntaxError|ReferenceError|ValidationException|ECONNREFUSED|ERR_[A-Z_]+|FST_ERR/,
  ],
];

function fail(op: Operation, c: Case, reply: RawReply, why: string): never {
  throw new Error(
    `${op.service} ${op.operationId} — ${why}\n  case: ${c.label}\n  request: ${c.request.method} ${c.request.target.slice(0, 300)}\n  answer: ${reply.status} ${reply.text.slice(0, 600)}`,
  );
}

function isValidationItem(item: unknown): boolean {
  if (typeof item !== 'object' || item === null) return false;
  const i = item as Record<string, unknown>;
  return (
    Array.isArray(i.loc) &&
    i.loc.every((s) => typeof s === 'string' || (typeof s === 'number' && Number.isInteger(s))) &&
    typeof i.msg === 'string' &&
    typeof i.type === 'string' &&
    (i.ctx === undefined || (typeof i.ctx === 'object' && i.ctx !== null))
  );
}

export function checkReply(op: Operation, c: Case, reply: RawReply): void {
  const r = op.refinement;
  const status = reply.status;
  if (status >= 500 && !(r.documented5xx ?? []).includes(status)) fail(op, c, reply, `answered ${status}`);
  if (c.expect && !c.expect.includes(status)) fail(op, c, reply, `expected ${c.expect.join(' or ')}`);
  if (c.valid && !(r.valid ?? [200]).includes(status)) {
    fail(op, c, reply, `a valid request was answered ${status} (allowed: ${(r.valid ?? [200]).join(', ')})`);
  }
  // The model server's own answers are relayed unchanged; HEAD answers have no body.
  const relayed = r.relayed === true && reply.headers['x-gco-inference-target'] !== undefined;
  if (status < 400 || relayed || c.request.method === 'HEAD') return;

  for (const [what, pattern] of LEAKS) if (pattern.test(reply.text)) fail(op, c, reply, `leaks a ${what}`);
  if (!String(reply.headers['content-type'] ?? '').startsWith('application/json')) {
    fail(op, c, reply, 'error body is not JSON');
  }
  let body: unknown;
  try {
    body = JSON.parse(reply.text);
  } catch {
    fail(op, c, reply, 'error body does not parse as JSON');
  }
  if (status >= 500) return;
  const structured = (r.structured4xx ?? []).includes(status);
  if (!structured && reply.body.length > MAX_ERROR_BYTES) {
    fail(op, c, reply, `error body of ${reply.body.length} bytes`);
  }
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (status === 422) {
    if (!Array.isArray(detail) || detail.length === 0 || !detail.every(isValidationItem)) {
      fail(op, c, reply, '422 is not an HTTPValidationError');
    }
  } else if (!structured && typeof detail !== 'string') {
    fail(op, c, reply, `${status} is not {"detail": string}`);
  }
}

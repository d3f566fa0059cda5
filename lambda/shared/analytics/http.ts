/**
 * HTTP plumbing of the analytics handlers (API Gateway REST v1 proxy integration): the raw request body,
 * JSON bodies, and refusals as the edge Lambdas' EdgeHttpError (answered `{"message":"…"}`).
 */
import { EdgeHttpError } from '../errors.js';

/** The request body's bytes exactly as the client sent them (API Gateway may base64-encode them). */
export function rawBody(event: { body: string | null; isBase64Encoded?: boolean }): Buffer {
  if (event.body === null || event.body === undefined) return Buffer.alloc(0);
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Parses a JSON request body. Empty, non-UTF-8 or malformed bodies are 400s (never a stack trace). */
export function parseJsonBody(bytes: Buffer): unknown {
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new EdgeHttpError(400, 'Request body is not valid UTF-8', 'body_not_utf8');
  }
  return parseJsonText(text);
}

/**
 * parseJsonBody for a body already held as well-formed text (no lone surrogates: what decoding UTF-8
 * yields), with the same 400s.
 */
export function parseJsonText(text: string): unknown {
  if (text.length === 0) throw new EdgeHttpError(400, 'Request body is required (JSON)', 'empty_body');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new EdgeHttpError(400, 'Request body is not valid JSON', 'malformed_json');
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A client-supplied name for a message: quoted, and cut short so a huge key cannot bloat the answer. */
export function quoteName(name: string, max = 64): string {
  return JSON.stringify(name.length > max ? `${name.slice(0, max)}…` : name);
}

/** 400 naming the first field that is not in `allowed`. */
export function rejectUnknownFields(body: Record<string, unknown>, allowed: readonly string[]): void {
  const unknown = Object.keys(body).find((k) => !allowed.includes(k));
  if (unknown !== undefined) {
    throw new EdgeHttpError(
      400,
      `Unknown field ${quoteName(unknown)} (allowed: ${allowed.join(', ')})`,
      'unknown_field',
    );
  }
}

/**
 * Every value of a header, case-insensitively. API Gateway hands a REQUEST authorizer and a proxy
 * integration both maps; `multiValueHeaders` is the complete one (a repeated header keeps every value,
 * while `headers` keeps only the last). `headers` is read only when the event has no multi-value map.
 */
export function headerValues(
  event: {
    headers?: Record<string, string | undefined> | null;
    multiValueHeaders?: Record<string, string[] | undefined> | null;
  },
  name: string,
): string[] {
  const wanted = name.toLowerCase();
  const multi = event.multiValueHeaders;
  if (multi !== undefined && multi !== null && Object.keys(multi).length > 0) {
    return Object.entries(multi)
      .filter(([k]) => k.toLowerCase() === wanted)
      .flatMap(([, v]) => v ?? []);
  }
  return Object.entries(event.headers ?? {})
    .filter(([k, v]) => k.toLowerCase() === wanted && v !== undefined)
    .map(([, v]) => v as string);
}

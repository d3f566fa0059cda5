/**
 * The events request body as the handler needs it: its UTF-8 size (the 413 check), the SHA-256 of its
 * bytes (the idempotency key) and its JSON. A body API Gateway passes as text is used as text: copying
 * it into a Buffer first costs ~1 ms per 120 KB (a 500-event batch), more than hashing and parsing it.
 *
 * The bytes are the same either way: a string without lone surrogates has one UTF-8 encoding, which is
 * what `Buffer.from(body, 'utf8')` produces and what `hash.update(body, 'utf8')` hashes. A body with a
 * lone surrogate (which `Buffer.from` replaces by U+FFFD) and a base64-encoded body take the byte path
 * (lambda/shared/analytics/http.ts `rawBody`), so answers and keys do not depend on the path.
 */
import { createHash } from 'node:crypto';
import { parseJsonBody, parseJsonText, rawBody } from '../shared/analytics/http.js';

/** A surrogate code unit that is not half of a pair (in `u` mode a pair is one code point, not `Cs`). */
const LONE_SURROGATE = /\p{Cs}/u;

export interface RequestBody {
  /** Size in bytes, as the client sent them. */
  readonly byteLength: number;
  /** Lower-case hex SHA-256 of the bytes. */
  sha256Hex(): string;
  /** The parsed JSON, or a 400 EdgeHttpError (empty, not UTF-8, malformed). */
  json(): unknown;
}

export function requestBody(event: { body: string | null; isBase64Encoded?: boolean }): RequestBody {
  const text = event.body;
  if (text === null || text === undefined || event.isBase64Encoded === true || LONE_SURROGATE.test(text)) {
    const bytes = rawBody(event);
    return {
      byteLength: bytes.length,
      sha256Hex: () => createHash('sha256').update(bytes).digest('hex'),
      json: () => parseJsonBody(bytes),
    };
  }
  return {
    byteLength: Buffer.byteLength(text, 'utf8'),
    sha256Hex: () => createHash('sha256').update(text, 'utf8').digest('hex'),
    json: () => parseJsonText(text),
  };
}

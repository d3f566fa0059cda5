/**
 * Arbitraries for the parts of an HTTP request a caller controls at the edge: path segments (percent-
 * encoded Unicode included), query parameters, extra headers and bodies of every kind — JSON, text,
 * bytes that are not UTF-8, binary media types (which API Gateway base64-encodes), none — plus the
 * backend target the proxies must build from a path and a query (docs/edge-lambdas.md, "Path", "Query").
 */
import fc from 'fast-check';
import { BINARY_MEDIA_TYPES } from './edge-under-test.js';

/** One path segment as sent: unreserved characters, or any text percent-encoded (`%2F`, `%3F`, UTF-8…). */
export const pathSegment: fc.Arbitrary<string> = fc
  .oneof(
    fc.stringMatching(/^[A-Za-z0-9._~-]{1,16}$/),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }).map(encodeURIComponent),
    fc.constantFrom('a%2Fb', '%3Fq', '%23frag', '%25', 'x+y', "it's", 'a:b@c', '%00'),
  )
  // Dot segments are a mutation of their own (the proxies refuse them).
  .filter((segment) => segment !== '.' && segment !== '..');

/** Text for query keys and values: any Unicode (no lone surrogates), control characters included. */
const queryText = (minLength: number): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ unit: 'grapheme', minLength, maxLength: 12 }),
    fc.string({ unit: 'binary', minLength, maxLength: 6 }),
    fc.constantFrom('a&b=c', '%41', '+', ' ', '\u0000', '\n', '\u00fc', '__proto__', 'constructor'),
  );

/** Query parameters, unique keys (API Gateway groups repeated keys, which the proxies document). */
export const queryParameters: fc.Arbitrary<[string, string][]> = fc.uniqueArray(
  fc.tuple(queryText(1), queryText(0)),
  { selector: ([key]) => key, maxLength: 4 },
);

/** Extra caller headers: visible ASCII and Latin-1 values, which every hop must pass on unchanged. */
export const extraHeaders: fc.Arbitrary<[string, string][]> = fc.uniqueArray(
  fc.tuple(
    fc.oneof(
      { weight: 8, arbitrary: fc.stringMatching(/^x-fuzz-[a-z0-9-]{1,10}$/) },
      // Names that are also Object.prototype members: a header like any other.
      { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'tostring') },
    ),
    fc.stringMatching(/^[\x21-\x7e\xa1-\xff](?:[\x20-\x7e\xa0-\xff]{0,40}[\x21-\x7e\xa1-\xff])?$/),
  ),
  { selector: ([name]) => name, maxLength: 3 },
);

type BodyKind = 'json' | 'text' | 'not-utf8' | 'binary-type' | 'large';

/**
 * A request body as a short description (a failing run prints it): text for JSON and text bodies,
 * bytes for the others, a size for large ones. `bodyBytes` makes the bytes.
 */
export interface GeneratedBody {
  kind: BodyKind;
  contentType: string | undefined;
  text?: string;
  octets?: number[];
  /** Bytes of padding in a large JSON body. */
  size?: number;
}

/** The bytes a generated body stands for. */
export function bodyBytes(body: GeneratedBody): Buffer {
  if (body.text !== undefined) return Buffer.from(body.text, 'utf8');
  if (body.octets !== undefined) return Buffer.from(body.octets);
  return Buffer.from(JSON.stringify({ pad: 'p'.repeat(body.size ?? 0) }));
}

const TEXT_TYPES = ['application/json', 'text/plain; charset=utf-8', 'application/x-www-form-urlencoded'];

/** A request body: mostly small JSON or text, sometimes bytes that are not UTF-8, binary or large. */
export function requestBody(largeSizes: readonly number[]): fc.Arbitrary<GeneratedBody> {
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .json({ maxDepth: 3 })
        .map((text) => ({ kind: 'json' as const, contentType: 'application/json', text })),
    },
    {
      weight: 3,
      arbitrary: fc
        .tuple(
          fc.string({ unit: 'binary', minLength: 1, maxLength: 200 }),
          fc.option(fc.constantFrom(...TEXT_TYPES)),
        )
        .map(([text, type]) => ({ kind: 'text' as const, contentType: type ?? undefined, text })),
    },
    {
      weight: 2,
      // A trailing lead byte (0xC3) with nothing after it guarantees the bytes are not UTF-8.
      arbitrary: fc
        .tuple(fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 40 }), fc.constantFrom(...TEXT_TYPES))
        .map(([octets, type]) => ({
          kind: 'not-utf8' as const,
          contentType: type,
          octets: [...octets, 0xc3],
        })),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 64 }),
          fc.constantFrom(...binaryTypes()),
        )
        .map(([octets, type]) => ({ kind: 'binary-type' as const, contentType: type, octets })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(...largeSizes)
        .map((size) => ({ kind: 'large' as const, contentType: 'application/json', size })),
    },
  );
}

/** Concrete media types matching BINARY_MEDIA_TYPES (`image/*` → image/png). */
function binaryTypes(): string[] {
  return BINARY_MEDIA_TYPES.map((type) => type.replace('/*', '/png'));
}

/** `arbitrary` in one run out of `oneIn`, null otherwise. */
export function rarely<T>(arbitrary: fc.Arbitrary<T>, oneIn: number): fc.Arbitrary<T | null> {
  return fc.oneof({ weight: oneIn - 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary });
}

/** A segment API Gateway and the proxies must treat as `.` or `..`. */
export const dotSegment: fc.Arbitrary<string> = fc.constantFrom('.', '..', '%2e', '%2E%2e', '.%2E');

/** An x-*-target-region header in some letter case: a caller may not pick the target region. */
export const targetRegionHeader: fc.Arbitrary<[string, string]> = fc.tuple(
  fc.oneof(
    fc.constantFrom(
      'X-SVC-Target-Region',
      'x-svc-target-region',
      'X-Svc-TARGET-region',
      'X-GCO-Target-Region',
    ),
    fc.stringMatching(/^[a-z0-9]{1,8}$/).map((token) => `X-${token}-Target-Region`),
  ),
  fc.constantFrom('us-east-1', '', 'anything'),
);

/** The proxies' refusal of a region-picking header (lambda/shared/target-region.ts). */
export function targetRegionMessage(header: string): string {
  return `The ${header.toLowerCase()} header is not honoured: a request is served by the region of the API it is sent to. To target a region, call that region's regional API, or /api/v1/global/* for every region.`;
}

/** The query as the proxies rebuild it: every key and value encoded once with encodeURIComponent. */
function rebuiltQuery(query: readonly (readonly [string, string])[]): string {
  return query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
}

/** The request target the backend must see for a path sent as is and a query of decoded values. */
export function backendTarget(path: string, query: readonly (readonly [string, string])[]): string {
  const rebuilt = rebuiltQuery(query);
  return rebuilt === '' ? path : `${path}?${rebuilt}`;
}

/** The body bytes a Lambda proxy receives and forwards: API Gateway hands it text (U+FFFD for non-UTF-8). */
export function forwardedBytes(bytes: Buffer): Buffer {
  return Buffer.from(bytes.toString('utf8'), 'utf8');
}

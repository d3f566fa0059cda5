/**
 * Generated request bodies and path ids for the analytics API, each with its verdict known by
 * construction (docs/analytics-api.md): a valid body says what must be stored, an invalid one the
 * status and message it must get. Bodies travel as text or, now and then, with a binary media type
 * (API Gateway then hands the function base64, which the handlers decode).
 */
import fc from 'fast-check';
import { ANALYTICS_BINARY_TYPE } from './analytics-under-test.js';

export type Verdict = { status: 200 } | { status: number; message: RegExp };

export interface GeneratedRequestBody {
  /** What the body is, for the failure report. */
  label: string;
  text?: string;
  /** Raw bytes when the body is not text (not UTF-8). */
  octets?: number[];
  contentType: string;
  verdict: Verdict;
}

export function requestBytes(body: GeneratedRequestBody): Buffer {
  return body.octets !== undefined ? Buffer.from(body.octets) : Buffer.from(body.text ?? '', 'utf8');
}

// eslint-disable-next-line no-control-regex -- what the handlers refuse in a name
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const REPLACEMENT = '\uFFFD';
const codePoints = (s: string) => [...s].length;

/** Printable text of at most `max` code points after trimming, with no U+FFFD (the mark of non-UTF-8). */
function text(maxGraphemes: number, maxCodePoints: number, allowBlank: boolean): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.constantFrom('', ' ', '  \t'),
      fc.string({ unit: 'grapheme', minLength: allowBlank ? 0 : 1, maxLength: maxGraphemes }),
      fc.constantFrom('', ' ', '\u3000'),
    )
    .map(([before, core, after]) => `${before}${core}${after}`)
    .filter(
      (s) =>
        !s.includes(REPLACEMENT) && codePoints(s.trim()) <= maxCodePoints && (allowBlank || s.trim() !== ''),
    );
}

const validName = text(16, 128, false).filter((s) => !CONTROL.test(s.trim()));
const validDescription = text(40, 1024, true);

/** A JSON value that is not a string. */
const notAString: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.string(), { maxKeys: 2 }),
);

/** `depth` nested arrays around a value: deep nesting must be refused as a wrong type, never crash. */
const nested = (depth: number, inner: string) => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;

const ok = (label: string, body: Record<string, unknown>): GeneratedRequestBody => ({
  label,
  text: JSON.stringify(body),
  contentType: 'application/json',
  verdict: { status: 200 },
});
const bad = (label: string, textBody: string, status: number, message: RegExp): GeneratedRequestBody => ({
  label,
  text: textBody,
  contentType: 'application/json',
  verdict: { status, message },
});

/** Malformations every JSON-object body of the admin routes answers the same way. */
const malformedBody: fc.Arbitrary<GeneratedRequestBody> = fc.oneof(
  fc.constant(bad('empty', '', 400, /^Request body is required/)),
  fc
    .string({ minLength: 1, maxLength: 20 })
    .filter((s) => {
      try {
        JSON.parse(s);
        return false;
      } catch {
        return true;
      }
    })
    .map((s) => bad('not JSON', s, 400, /^Request body is not valid JSON$/)),
  fc
    .oneof(fc.integer(), fc.string(), fc.array(fc.integer(), { maxLength: 3 }), fc.constant(null))
    .map((v) => bad('not an object', JSON.stringify(v), 400, /^Request body must be a JSON object$/)),
  fc.array(fc.integer({ min: 0x80, max: 0xbf }), { minLength: 1, maxLength: 4 }).map((octets) => ({
    label: 'not UTF-8',
    octets: [...Buffer.from('{"Name":"'), ...octets, ...Buffer.from('"}')],
    contentType: 'application/json',
    verdict: { status: 400, message: /^Request body is not valid UTF-8$/ },
  })),
  fc.constant(
    bad('over 64 KiB', JSON.stringify({ Name: 'n', Description: 'd'.repeat(70_000) }), 413, /too large/),
  ),
);

/** Sends a text body now and then as a binary media type: the handlers must answer the same. */
function sometimesBinary(body: fc.Arbitrary<GeneratedRequestBody>): fc.Arbitrary<GeneratedRequestBody> {
  return fc
    .tuple(body, fc.nat(5))
    .map(([b, n]) =>
      n === 0 ? { ...b, contentType: ANALYTICS_BINARY_TYPE, label: `${b.label} (binary)` } : b,
    );
}

/** `{"Name", "Description"?}` of POST /applications and POST …/authorizations, valid or not. */
export const namedBody: fc.Arbitrary<GeneratedRequestBody> = sometimesBinary(
  fc.oneof(
    {
      weight: 5,
      arbitrary: fc
        .record({ Name: validName, Description: validDescription }, { requiredKeys: ['Name'] })
        .map((body) => ok('valid', body)),
    },
    {
      weight: 5,
      arbitrary: fc.oneof(
        fc.constant(bad('Name missing', '{"Description":"x"}', 400, /^Name is required$/)),
        notAString.map((v) =>
          bad('Name not a string', JSON.stringify({ Name: v }), 400, /^Name must be a string$/),
        ),
        fc.constant(
          bad('Name nested 5000 deep', `{"Name":${nested(5000, '"x"')}}`, 400, /^Name must be a string$/),
        ),
        fc
          .constantFrom('', '   ', '\t\n', '\u3000')
          .map((n) => bad('Name blank', JSON.stringify({ Name: n }), 400, /^Name must be 1 to 128/)),
        fc
          .integer({ min: 129, max: 400 })
          .map((n) =>
            bad('Name too long', JSON.stringify({ Name: 'n'.repeat(n) }), 400, /^Name must be 1 to 128/),
          ),
        fc
          .tuple(validName, fc.integer({ min: 0, max: 0x1f }))
          .map(([n, c]) =>
            bad(
              'Name with a control character',
              JSON.stringify({ Name: `a${String.fromCharCode(c)}${n}` }),
              400,
              /control characters/,
            ),
          ),
        notAString.map((v) =>
          bad(
            'Description not a string',
            JSON.stringify({ Name: 'n', Description: v }),
            400,
            /^Description must be a string$/,
          ),
        ),
        fc
          .integer({ min: 1025, max: 3000 })
          .map((n) =>
            bad(
              'Description too long',
              JSON.stringify({ Name: 'n', Description: 'd'.repeat(n) }),
              400,
              /at most 1024/,
            ),
          ),
        fc
          .oneof(
            fc.string({ minLength: 1, maxLength: 10 }),
            fc.constantFrom('__proto__', 'constructor', 'name'),
          )
          .filter((k) => k !== 'Name' && k !== 'Description')
          .map((k) =>
            bad(
              'unknown field',
              `{"Name":"n",${JSON.stringify(k)}:1}`,
              400,
              /^Unknown field .* \(allowed: Name, Description\)$/,
            ),
          ),
        malformedBody,
      ),
    },
  ),
);

/** `{"Enabled": bool}` of PUT …/authorizations/{API_KEY_ID}, valid or not. */
export const enabledBody: fc.Arbitrary<GeneratedRequestBody> = sometimesBinary(
  fc.oneof(
    { weight: 4, arbitrary: fc.boolean().map((enabled) => ok('valid', { Enabled: enabled })) },
    {
      weight: 6,
      arbitrary: fc.oneof(
        fc.constant(bad('Enabled missing', '{}', 400, /^Enabled is required$/)),
        fc
          .oneof(fc.constantFrom('true', 'false', 0, 1, null), fc.array(fc.boolean(), { maxLength: 2 }))
          .map((v) =>
            bad('Enabled not a boolean', JSON.stringify({ Enabled: v }), 400, /^Enabled must be a boolean/),
          ),
        fc.constant(
          bad(
            'Enabled nested 5000 deep',
            `{"Enabled":${nested(5000, 'true')}}`,
            400,
            /^Enabled must be a boolean/,
          ),
        ),
        fc
          .constantFrom('Name', 'enabled', '__proto__')
          .map((k) =>
            bad(
              'unknown field',
              `{"Enabled":true,${JSON.stringify(k)}:1}`,
              400,
              /^Unknown field .* \(allowed: Enabled\)$/,
            ),
          ),
        malformedBody.filter((b) => b.label !== 'not UTF-8'),
      ),
    },
  ),
);

export type PathId =
  | { kind: 'existing'; upperCase: boolean }
  | { kind: 'unknown'; id: string }
  | { kind: 'not-a-uuid'; segment: string }
  | { kind: 'too-long' };

/** A path id: an existing one (any case), an unknown UUID, something that is not a UUID, or far too long. */
export const pathId: fc.Arbitrary<PathId> = fc.oneof(
  { weight: 4, arbitrary: fc.boolean().map((upperCase) => ({ kind: 'existing' as const, upperCase })) },
  { weight: 2, arbitrary: fc.uuid({ version: 4 }).map((id) => ({ kind: 'unknown' as const, id })) },
  {
    weight: 2,
    arbitrary: fc
      .oneof(
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
        fc.constantFrom('..', '.', 'null', '00000000-0000-0000-0000-00000000000g', '%', '__proto__'),
      )
      .filter((s) => !/^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.test(s))
      // `/applications/redshift` is a literal resource (of the setup route), which API Gateway prefers.
      .filter((s) => s !== 'redshift')
      .map((s) => ({
        kind: 'not-a-uuid' as const,
        segment: s === '.' || s === '..' ? s : encodeURIComponent(s),
      })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'too-long' as const }) },
);

/** The path segment for a PathId, given the id of an existing resource. */
export function pathSegmentOf(id: PathId, existing: string): string {
  switch (id.kind) {
    case 'existing':
      return id.upperCase ? existing.toUpperCase() : existing;
    case 'unknown':
      return id.id;
    case 'not-a-uuid':
      return id.segment;
    case 'too-long':
      return 'x'.repeat(1_700);
  }
}

/**
 * The answer a path id gets before the route looks anything up: 414 from API Gateway for a path that
 * makes the method ARN too long, 400 naming the parameter for anything that is not a UUID.
 */
export function pathIdRefusal(
  id: PathId,
  parameter: string,
): { status: number; message: RegExp } | undefined {
  if (id.kind === 'too-long') return { status: 414, message: /^Request-URI Too Long$/ };
  if (id.kind === 'not-a-uuid')
    return { status: 400, message: new RegExp(`^Path parameter ${parameter} must be a UUID$`) };
  return undefined;
}

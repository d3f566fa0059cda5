/**
 * Requests for one operation: valid ones (from its schemas and refinements) and mutations of them —
 * wrong types, out-of-range and non-finite numbers, unknown fields and parameters, nulls, huge strings,
 * deep nesting, invalid UTF-8, lone surrogates, `__proto__` keys, wrong content types, bodies over the
 * limit, non-decimal integers, unknown booleans, long and traversing path parameters, malformed escapes,
 * oversized URLs and headers. A mutation that the rules make certain to be refused carries the statuses
 * it must get; every other one is held to the invariants only (checks.ts).
 */
import { Ajv } from 'ajv';
import fc from 'fast-check';
import type { JsonSchema, RawRequest } from './harness.js';
import { paramValue, type Operation } from './operations.js';
import { freeJson, valueOf } from './schema-arbitrary.js';

export interface Case {
  /** What was generated, for the failure report. */
  label: string;
  request: RawRequest;
  /** A valid request: it must get one of the operation's valid statuses. */
  valid: boolean;
  /** Statuses a mutation must get when the rules make its refusal certain. */
  expect?: number[];
  /** The Idempotency-Key sent, if any: a refused submission must not consume it. */
  idempotencyKey?: string;
  /** How fast-check prints the case in a failure report. */
  [fc.toStringMethod]: () => string;
}

/** The request before it is encoded: decoded path values, query pairs, headers and a body. */
interface Model {
  path: Record<string, string>;
  /** Already-encoded path segments that replace a decoded value (malformed escapes and the like). */
  rawPath: Record<string, string>;
  query: [string, string][];
  headers: Record<string, string>;
  body?: Buffer;
  /** The parsed body, when it is an object a mutation can change. */
  json?: Record<string, unknown>;
}

interface Mutation {
  label: string;
  model: Model;
  expect?: number[];
  /** The mutation is still a valid request (e.g. a JSON body sent without a content type). */
  valid?: boolean;
}

const ajv = new Ajv({ strict: false, allErrors: false });
const compiled = new WeakMap<object, ReturnType<Ajv['compile']>>();
/** Does the value satisfy the schema? The oracle for mutated body fields. */
function satisfies(schema: JsonSchema, value: unknown): boolean {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate(value) as boolean;
}

const BOOLEAN_WORDS = [
  'true',
  'false',
  '1',
  '0',
  'yes',
  'no',
  'on',
  'off',
  't',
  'f',
  'y',
  'n',
  'True',
  'OFF',
];

const textOf = (value: unknown, schema: JsonSchema): fc.Arbitrary<string> => {
  const types = [schema.type].flat();
  if (typeof value === 'boolean' && types.includes('boolean')) {
    // Any of pydantic's words for the value.
    const words = BOOLEAN_WORDS.filter(
      (w) => ['true', '1', 'yes', 'on', 't', 'y'].includes(w.toLowerCase()) === value,
    );
    return fc.constantFrom(...words);
  }
  return fc.constant(String(value));
};

function encodeSegment(name: string, value: string): string {
  const encoded = encodeURIComponent(value);
  // {upstream_path} spans segments (the inference proxy's wildcard).
  return name === 'upstream_path' ? encoded.replace(/%2F/g, '/') : encoded;
}

function build(op: Operation, m: Model): RawRequest {
  const path = op.path.replace(
    /\{(\w+)\}/g,
    (_, name: string) => m.rawPath[name] ?? encodeSegment(name, m.path[name] ?? ''),
  );
  const query = m.query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  return {
    method: op.method,
    target: query ? `${path}?${query}` : path,
    headers: m.headers,
    ...(m.body ? { body: m.body } : {}),
  };
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A valid request model. */
function validModel(op: Operation): fc.Arbitrary<Model> {
  const path = fc.record(
    Object.fromEntries(op.pathParams.map((p) => [p.name, paramValue(op, 'path', p) as fc.Arbitrary<string>])),
  );
  const query = fc
    .tuple(
      ...op.query.map((p) =>
        fc.option(
          paramValue(op, 'query', p).chain((v) =>
            v === undefined ? fc.constant(undefined) : textOf(v, p.schema),
          ),
          {
            nil: undefined,
            freq: p.required ? 0 : 2,
          },
        ),
      ),
    )
    .map((values) =>
      op.query.flatMap((p, i): [string, string][] => (values[i] === undefined ? [] : [[p.name, values[i]]])),
    );
  const headers = fc
    .tuple(...op.headers.map((p) => fc.option(paramValue(op, 'headers', p).map(String), { nil: undefined })))
    .map((values) =>
      Object.fromEntries(
        op.headers.flatMap((p, i) => (values[i] === undefined ? [] : [[p.name, values[i]]])),
      ),
    );
  // GET and HEAD carry no body (a server does not read one, so the envelope could not cover it).
  const bodyless = op.method === 'GET' || op.method === 'HEAD';
  const bodyValue: fc.Arbitrary<unknown> | undefined = bodyless
    ? undefined
    : (op.refinement.body ?? (op.body ? valueOf(op.body.schema) : undefined));
  const contentType = fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'Application/JSON',
  );
  const body = bodyValue
    ? fc.tuple(bodyValue, contentType).map(([value, type]) => ({ value, type }))
    : fc.constant(undefined);
  return fc.tuple(path, query, headers, body).map(([p, q, h, b]) => ({
    path: p,
    rawPath: {},
    query: q,
    headers: { ...h, ...(b ? { 'content-type': b.type } : {}) },
    ...(b ? { body: json(b.value), ...(isObject(b.value) ? { json: b.value } : {}) } : {}),
  }));
}

const withBody = (m: Model, body: Buffer, contentType = 'application/json'): Model => ({
  ...m,
  headers: { ...m.headers, 'content-type': contentType },
  body,
});

/** Values that break a field's type or range (the schema decides whether each is refused). */
const badValue = fc.oneof(
  fc.constant(null),
  fc.constantFrom(1e308, -1e308, 5e-324, -5e-324, 1e-320, 1e-131, 1e126, 2 ** 53 + 1, -1, 0, 1.5, -0.0),
  fc.constantFrom('', '0x10', 'true', '1e3', 'null', '\u0000', '𝒳'),
  fc.boolean(),
  fc.array(freeJson, { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), freeJson, { maxKeys: 3 }),
  fc.integer({ min: 2049, max: 70_000 }).map((n) => 'x'.repeat(n)),
);

/** JSON text that is not JSON. */
const NOT_JSON = [
  '{',
  '{"a":}',
  "{'a':1}",
  '[1,]',
  'NaN',
  'nul',
  '{"a":1}x',
  '{"a":1,}',
  '{"a" 1}',
  '"\\x"',
  '{"a":"\u0001"}',
  '01',
];

function bodyMutations(op: Operation, m: Model): fc.Arbitrary<Mutation>[] {
  const schema = op.body?.schema;
  if (!schema || !m.json) return [];
  const value = m.json;
  const properties = Object.keys(schema.properties ?? {});
  const propertySchema = (name: string) =>
    ((schema.properties ?? {}) as Record<string, JsonSchema>)[name] ?? {};
  const raw = (label: string, text: string | Buffer, expect?: number[]): Mutation => ({
    label,
    model: withBody(m, Buffer.isBuffer(text) ? text : Buffer.from(text)),
    ...(expect ? { expect } : {}),
  });
  const rest = JSON.stringify(value).slice(1); // `…}` after the opening brace
  const withFirst = (member: string) => (rest === '}' ? `{${member}}` : `{${member},${rest}`);
  const mutations: fc.Arbitrary<Mutation>[] = [
    // One rule for every body: an unknown top-level field is refused.
    fc
      .string({ minLength: 1, maxLength: 12 })
      .filter((k) => !properties.includes(k) && k !== '__proto__')
      .chain((key) =>
        freeJson.map((v) =>
          raw(`unknown field ${JSON.stringify(key)}`, JSON.stringify({ ...value, [key]: v }), [422]),
        ),
      ),
    fc
      .constantFrom(65, 300, 5_000)
      .map((depth) =>
        raw(`nesting ${depth} deep`, withFirst(`"deep":${'['.repeat(depth)}${']'.repeat(depth)}`), [422]),
      ),
    fc.constant(raw('__proto__ key', withFirst('"__proto__":{"polluted":true}'), [422])),
    fc
      .constantFrom('\\ud800', '\\udc00x', '\\ud800\\u0041')
      .map((s) => raw(`lone surrogate ${s}`, withFirst(`"${s}":1`), [422])),
    fc
      .constantFrom([0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82])
      .map((bytes) =>
        raw(
          `invalid UTF-8 ${bytes.join(',')}`,
          Buffer.concat([Buffer.from('{"s":"a'), Buffer.from(bytes), Buffer.from('"}')]),
          [400],
        ),
      ),
    fc.constantFrom(...NOT_JSON).map((text) => raw(`not JSON ${JSON.stringify(text)}`, text, [422])),
    fc
      .constantFrom('[]', '"text"', '42', 'true', 'null', '[{}]')
      .map((text) => raw(`not an object: ${text}`, text, [422])),
    fc
      .integer({ min: 1, max: 4096 })
      .map((extra) => raw(`body of 1 MiB + ${extra}`, `{"s":"${'x'.repeat(1024 * 1024 + extra)}"}`, [413])),
    fc
      .constantFrom(
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/xml',
        'text/json',
        'application/jsonp',
        'application/json; charset=latin1',
      )
      .map((type) => ({
        label: `content-type ${type}`,
        model: withBody(m, m.body ?? json(value), type),
        expect: [415],
      })),
    // FastAPI reads a body without a content type as JSON: still a valid request.
    fc.constant({
      label: 'no content type',
      model: {
        ...m,
        headers: Object.fromEntries(Object.entries(m.headers).filter(([k]) => k !== 'content-type')),
      },
      valid: true,
    }),
  ];
  if (properties.length > 0) {
    mutations.push(
      fc.tuple(fc.constantFrom(...properties), badValue).map(([name, bad]) => {
        const text = JSON.stringify({ ...value, [name]: bad });
        const refused = !satisfies(propertySchema(name), JSON.parse(text)[name] as unknown);
        return raw(`${name} = ${JSON.stringify(bad).slice(0, 40)}`, text, refused ? [422] : undefined);
      }),
      // Numbers JSON can write but a double cannot hold.
      fc
        .tuple(
          fc.constantFrom(...properties),
          fc.constantFrom('1e400', '-1e400', '1E-400', '123456789012345678901234567890'),
        )
        .map(([name, token]) => {
          const text = JSON.stringify({ ...value, [name]: '__TOKEN__' }).replace('"__TOKEN__"', token);
          const refused = !satisfies(propertySchema(name), JSON.parse(token) as unknown);
          return raw(`${name} = ${token}`, text, refused ? [422] : undefined);
        }),
    );
  }
  return mutations;
}

const BAD_INTEGERS = [
  '0x10',
  '1e3',
  '+5',
  '1.0',
  ' 5',
  '5 ',
  '',
  '1_000',
  '--1',
  '0b1',
  'NaN',
  'Infinity',
  '١٢',
];
const BAD_BOOLEANS = ['maybe', '2', '', 'truee', 'yes!', ' on', 'null'];

function queryMutations(op: Operation, m: Model): fc.Arbitrary<Mutation>[] {
  const open = op.refinement.relayed === true; // forwarded queries are the model's business
  const declared = op.query.map((p) => p.name);
  const mutations: fc.Arbitrary<Mutation>[] = [
    fc
      .string({ minLength: 1, maxLength: 12 })
      .filter((k) => !declared.includes(k))
      .map((key) => ({
        label: `unknown query parameter ${JSON.stringify(key)}`,
        model: { ...m, query: [...m.query, [key, 'x']] },
        ...(open ? { valid: true } : { expect: [422] }),
      })),
  ];
  const typed = (type: string) => op.query.filter((p) => [p.schema.type].flat().includes(type));
  const replace = (name: string, value: string): [string, string][] => [
    ...m.query.filter(([k]) => k !== name),
    [name, value],
  ];
  for (const [type, words] of [
    ['integer', BAD_INTEGERS],
    ['boolean', BAD_BOOLEANS],
  ] as const) {
    const params = typed(type);
    if (params.length === 0) continue;
    mutations.push(
      fc.tuple(fc.constantFrom(...params), fc.constantFrom(...words)).map(([p, word]) => ({
        label: `${p.name}=${JSON.stringify(word)}`,
        model: { ...m, query: replace(p.name, word) },
        expect: [422],
      })),
    );
  }
  const strings = typed('string');
  if (strings.length > 0) {
    mutations.push(
      fc.tuple(fc.constantFrom(...strings), fc.integer({ min: 1, max: 12_000 })).map(([p, n]) => {
        const max = typeof p.schema.maxLength === 'number' ? p.schema.maxLength : Infinity;
        return {
          label: `${p.name} of ${n} characters`,
          model: { ...m, query: replace(p.name, 'q'.repeat(n)) },
          ...(n > max ? { expect: [422] } : {}),
        };
      }),
    );
  }
  return mutations;
}

function pathMutations(op: Operation, m: Model): fc.Arbitrary<Mutation>[] {
  if (op.pathParams.length === 0) return [];
  const param = fc.constantFrom(...op.pathParams);
  const set = (name: string, value: string): Model => ({ ...m, path: { ...m.path, [name]: value } });
  const setRaw = (name: string, raw: string): Model => ({ ...m, rawPath: { ...m.rawPath, [name]: raw } });
  const bounded = (schema: JsonSchema, value: string) =>
    typeof schema.maxLength === 'number' || typeof schema.pattern === 'string'
      ? !satisfies(schema, value)
      : false;
  return [
    fc.tuple(param, fc.integer({ min: 101, max: 3_000 })).map(([p, n]) => {
      const value = 'a'.repeat(n);
      return {
        label: `${p.name} of ${n} characters`,
        model: set(p.name, value),
        ...(bounded(p.schema, value) ? { expect: [422] } : {}),
      };
    }),
    fc
      .tuple(param, fc.constantFrom('..', '.', 'a/b', '../../etc/passwd', '%2e%2e', ' ', 'é', '\u0000'))
      .map(([p, value]) => ({
        label: `${p.name} = ${JSON.stringify(value)}`,
        model: set(p.name, value),
        ...(bounded(p.schema, value) ? { expect: [422] } : {}),
      })),
    // Traversal spelt with encoded dots, as a proxy hop might forward it.
    fc.tuple(param, fc.constantFrom('%2E%2E', '%2E', '..%2F..%2Fnamespaces')).map(([p, raw]) => ({
      label: `${p.name} raw ${raw}`,
      model: setRaw(p.name, raw),
      ...(bounded(p.schema, decodeURIComponent(raw)) ? { expect: [422] } : {}),
    })),
    fc.tuple(param, fc.constantFrom('%zz', '%', '%E0%A4%A', '%ff', '%C0%AF')).map(([p, raw]) => ({
      label: `${p.name} malformed escape ${raw}`,
      model: setRaw(p.name, raw),
      expect: [400],
    })),
    fc.tuple(param, fc.integer({ min: 17_000, max: 40_000 })).map(([p, n]) => ({
      label: `URL of ${n} characters`,
      model: set(p.name, 'u'.repeat(n)),
      expect: [431],
    })),
  ];
}

function headerMutations(op: Operation, m: Model): fc.Arbitrary<Mutation>[] {
  const mutations: fc.Arbitrary<Mutation>[] = [
    fc.integer({ min: 17_000, max: 40_000 }).map((n) => ({
      label: `header of ${n} bytes`,
      model: { ...m, headers: { ...m.headers, 'x-fuzz': 'h'.repeat(n) } },
      expect: [431],
    })),
  ];
  if (op.headers.some((h) => h.name === 'idempotency-key')) {
    mutations.push(
      fc.constantFrom('', 'a b', 'k'.repeat(256), 'caf\u00e9', '\t').map((key) => ({
        label: `Idempotency-Key ${JSON.stringify(key.slice(0, 20))}`,
        model: { ...m, headers: { ...m.headers, 'idempotency-key': key } },
        expect: [422],
      })),
    );
  }
  return mutations;
}

/** The path of a valid request (no query): where OPTIONS is asked. */
export function validPath(op: Operation): fc.Arbitrary<string> {
  return validModel(op).map((m) => build(op, { ...m, query: [] }).target);
}

/** Valid requests and mutations of them, mostly mutations. */
export function casesOf(op: Operation): fc.Arbitrary<Case> {
  return validModel(op).chain((m) => {
    const toCase = (label: string, model: Model, valid: boolean, expect?: number[]): Case => {
      const key = model.headers['idempotency-key'];
      const request = build(op, model);
      return {
        label,
        request,
        valid,
        ...(expect ? { expect } : {}),
        ...(key !== undefined ? { idempotencyKey: key } : {}),
        // fast-check prints a counterexample with this: short, whatever the case holds.
        [fc.toStringMethod]: () =>
          `${label} — ${request.method} ${request.target.slice(0, 200)}${request.body ? ` (${request.body.length}-byte body)` : ''}`,
      };
    };
    const mutations = [
      ...bodyMutations(op, m),
      ...queryMutations(op, m),
      ...pathMutations(op, m),
      ...headerMutations(op, m),
    ];
    return fc.oneof(
      { weight: 1, arbitrary: fc.constant(toCase('valid', m, true)) },
      {
        weight: 3,
        arbitrary: fc
          .oneof(...mutations)
          .map((mu) => toCase(mu.label, mu.model, mu.valid === true, mu.expect)),
      },
    );
  });
}

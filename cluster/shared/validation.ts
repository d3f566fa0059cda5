/**
 * Request validation: Ajv compilers for Fastify and the mapping of Ajv errors onto FastAPI/Pydantic v2
 * `ValidationError` items (loc/msg/type/input/ctx), so callers of these services see the same 422
 * bodies a FastAPI implementation of the seed would produce.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';
import type { LocSegment, ValidationErrorItem } from './errors.js';

// ajv-formats is CJS (`module.exports = plugin`, plus `.default = plugin`); under nodenext TypeScript
// types the default import as the namespace, so call its `default`, which exists at runtime too.
const addFormats = addFormatsModule.default;

/** Fastify's name for each request part → FastAPI's `loc[0]`. */
const LOC_ROOT: Record<string, string> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

function newAjv(coerceTypes: boolean | 'array'): Ajv {
  const ajv = new Ajv({
    coerceTypes,
    allErrors: true, // report every problem at once, as FastAPI does
    verbose: true, // keep the offending value (`data`) for `input`
    useDefaults: true,
    removeAdditional: false, // unknown fields are reported (extra_forbidden), never silently dropped
    strict: false,
  });
  addFormats(ajv);
  return ajv;
}

// Query strings, path parameters and headers arrive as text and are coerced ("5" → 5, "true" → true).
// JSON bodies are typed already: no coercion, so `null` is never silently turned into 0 or "".
const textAjv = newAjv('array');
const bodyAjv = newAjv(false);

const compiled = new Map<Ajv, WeakMap<object, ValidateFunction>>([
  [textAjv, new WeakMap()],
  [bodyAjv, new WeakMap()],
]);

export const validatorCompiler: FastifySchemaCompiler<FastifySchema> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  const cache = compiled.get(ajv) ?? new WeakMap<object, ValidateFunction>();
  let validate = cache.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    cache.set(schema, validate);
  }
  return validate;
};

function decodePointer(pointer: string): LocSegment[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^(0|[1-9]\d*)$/.test(s) ? Number(s) : s));
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function quoteList(values: readonly unknown[]): string {
  const quoted = values.map((v) => (typeof v === 'string' ? `'${v}'` : JSON.stringify(v)));
  if (quoted.length <= 1) return quoted.join('');
  return `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
}

function typeItem(
  expected: string,
  input: unknown,
  fromText: boolean,
  atRoot: boolean,
): Omit<ValidationErrorItem, 'loc'> {
  const parsing = fromText && typeof input === 'string';
  switch (expected) {
    case 'integer':
      return parsing
        ? {
            type: 'int_parsing',
            msg: 'Input should be a valid integer, unable to parse string as an integer',
          }
        : { type: 'int_type', msg: 'Input should be a valid integer' };
    case 'number':
      return parsing
        ? { type: 'float_parsing', msg: 'Input should be a valid number, unable to parse string as a number' }
        : { type: 'float_type', msg: 'Input should be a valid number' };
    case 'boolean':
      return parsing
        ? { type: 'bool_parsing', msg: 'Input should be a valid boolean, unable to interpret input' }
        : { type: 'bool_type', msg: 'Input should be a valid boolean' };
    case 'string':
      return { type: 'string_type', msg: 'Input should be a valid string' };
    case 'array':
      return { type: 'list_type', msg: 'Input should be a valid list' };
    case 'object':
      return atRoot
        ? {
            type: 'model_attributes_type',
            msg: 'Input should be a valid dictionary or object to extract fields from',
          }
        : { type: 'dict_type', msg: 'Input should be a valid dictionary' };
    default:
      return { type: `${expected}_type`, msg: `Input should be a valid ${expected}` };
  }
}

type BoundItem = Pick<ValidationErrorItem, 'type' | 'msg' | 'ctx'>;

/** Ajv's bound keywords → FastAPI's error type, wording and context (the limit, and a list's length). */
const BOUNDS: Record<string, (limit: number, length: number) => BoundItem> = {
  minimum: (limit) => ({
    type: 'greater_than_equal',
    msg: `Input should be greater than or equal to ${limit}`,
    ctx: { ge: limit },
  }),
  maximum: (limit) => ({
    type: 'less_than_equal',
    msg: `Input should be less than or equal to ${limit}`,
    ctx: { le: limit },
  }),
  exclusiveMinimum: (limit) => ({
    type: 'greater_than',
    msg: `Input should be greater than ${limit}`,
    ctx: { gt: limit },
  }),
  exclusiveMaximum: (limit) => ({
    type: 'less_than',
    msg: `Input should be less than ${limit}`,
    ctx: { lt: limit },
  }),
  minLength: (limit) => ({
    type: 'string_too_short',
    msg: `String should have at least ${plural(limit, 'character')}`,
    ctx: { min_length: limit },
  }),
  maxLength: (limit) => ({
    type: 'string_too_long',
    msg: `String should have at most ${plural(limit, 'character')}`,
    ctx: { max_length: limit },
  }),
  minItems: (limit, length) => ({
    type: 'too_short',
    msg: `List should have at least ${plural(limit, 'item')} after validation, not ${length}`,
    ctx: { field_type: 'List', min_length: limit, actual_length: length },
  }),
  maxItems: (limit, length) => ({
    type: 'too_long',
    msg: `List should have at most ${plural(limit, 'item')} after validation, not ${length}`,
    ctx: { field_type: 'List', max_length: limit, actual_length: length },
  }),
};

/** Maps one Ajv error to a FastAPI ValidationError item. */
export function toValidationItem(error: ErrorObject, httpPart: string): ValidationErrorItem {
  const root = LOC_ROOT[httpPart] ?? httpPart;
  const path = decodePointer(error.instancePath);
  const loc: LocSegment[] = [root, ...path];
  const input: unknown = error.data;
  const params = error.params as Record<string, unknown>;
  const fromText = httpPart !== 'body';
  const bound = BOUNDS[error.keyword];
  if (bound) {
    const limit = Number(params.limit);
    return { loc, input, ...bound(limit, Array.isArray(input) ? input.length : 0) };
  }

  switch (error.keyword) {
    case 'required': {
      // A missing body is FastAPI's `loc: ["body"]`, not a missing property of an absent object.
      const missing = String(params.missingProperty);
      return { loc: [...loc, missing], msg: 'Field required', type: 'missing', input: input ?? null };
    }
    case 'additionalProperties': {
      const extra = String(params.additionalProperty);
      const value =
        input !== null && typeof input === 'object' ? (input as Record<string, unknown>)[extra] : undefined;
      return {
        loc: [...loc, extra],
        msg: 'Extra inputs are not permitted',
        type: 'extra_forbidden',
        input: value,
      };
    }
    case 'type': {
      if (httpPart === 'body' && path.length === 0 && (input === undefined || input === null)) {
        return { loc, msg: 'Field required', type: 'missing', input: null };
      }
      const types = Array.isArray(params.type) ? (params.type as string[]) : String(params.type).split(',');
      const expected = types.find((t) => t !== 'null') ?? 'null';
      return { loc, input, ...typeItem(expected, input, fromText, path.length === 0) };
    }
    case 'pattern':
      return {
        loc,
        input,
        type: 'string_pattern_mismatch',
        msg: `String should match pattern '${String(params.pattern)}'`,
        ctx: { pattern: params.pattern },
      };
    case 'enum': {
      const expected = quoteList((params.allowedValues as unknown[]).filter((v) => v !== null));
      return { loc, input, type: 'enum', msg: `Input should be ${expected}`, ctx: { expected } };
    }
    case 'const': {
      const expected = quoteList([params.allowedValue]);
      return { loc, input, type: 'literal_error', msg: `Input should be ${expected}`, ctx: { expected } };
    }
    case 'format':
      return {
        loc,
        input,
        type: 'value_error',
        msg: `Value error, must be a valid ${String(params.format)}`,
        ctx: { format: params.format },
      };
    default:
      return { loc, input, type: 'value_error', msg: `Value error, ${error.message ?? 'invalid value'}` };
  }
}

/**
 * Maps Ajv's error list. Union summaries (`anyOf`/`oneOf`) are dropped when a more specific error at the
 * same location explains them, and exact duplicates are removed.
 */
export function toValidationItems(errors: readonly ErrorObject[], httpPart: string): ValidationErrorItem[] {
  const specific = new Set(
    errors.filter((e) => !['anyOf', 'oneOf'].includes(e.keyword)).map((e) => e.instancePath),
  );
  const seen = new Set<string>();
  const items: ValidationErrorItem[] = [];
  for (const error of errors) {
    if (['anyOf', 'oneOf'].includes(error.keyword) && specific.has(error.instancePath)) continue;
    // Inside a nullable union the `type: null` branch always fails too; it explains nothing.
    if (error.keyword === 'type' && error.params.type === 'null') continue;
    const item = toValidationItem(error, httpPart);
    const key = JSON.stringify([item.loc, item.type]);
    if (seen.has(key)) continue;
    seen.add(key);
    items.push(item);
  }
  return items;
}

/** FastAPI's answer for a body that is not valid JSON. */
export function jsonDecodeItem(error: Error): ValidationErrorItem {
  const position = /position (\d+)/.exec(error.message)?.[1];
  return {
    loc: ['body', position === undefined ? 0 : Number(position)],
    msg: 'JSON decode error',
    type: 'json_invalid',
    input: {},
    ctx: { error: error.message },
  };
}

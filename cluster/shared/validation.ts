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

function newAjv(): Ajv {
  const ajv = new Ajv({
    coerceTypes: false, // text is converted by pydantic's rules first (coerceText), JSON never is
    allErrors: true, // report every problem at once, as FastAPI does
    verbose: true, // keep the offending value (`data`) for `input`, and the schema for its hint
    useDefaults: true,
    removeAdditional: false, // unknown fields are reported (extra_forbidden), never silently dropped
    strict: false,
  });
  addFormats(ajv);
  return ajv;
}

const ajv = newAjv();
const compiled = new WeakMap<object, ValidateFunction>();

/** Query, path and header values are text: each is converted by its declared type before validation. */
type Scalar = 'integer' | 'number' | 'boolean';

const DECIMAL_INTEGER = /^-?\d+$/;
const DECIMAL_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const TRUE_WORDS = new Set(['1', 't', 'y', 'on', 'yes', 'true']);
const FALSE_WORDS = new Set(['0', 'f', 'n', 'no', 'off', 'false']);

/**
 * Pydantic's lax-mode reading of a text value (docs/service-framework.md, "Validation rules"), except
 * that integers are plain decimal digits with an optional minus (no `+`, `1.0`, `0x10`, `1e3`, `1_000`,
 * blanks). A value that does not convert stays text, so validation reports `*_parsing` for it.
 */
function convertText(text: string, type: Scalar): unknown {
  switch (type) {
    case 'integer':
      return DECIMAL_INTEGER.test(text) ? Number(text) : text;
    case 'number': {
      const value = DECIMAL_NUMBER.test(text) ? Number(text) : NaN;
      return Number.isFinite(value) ? value : text;
    }
    case 'boolean': {
      const word = text.toLowerCase();
      if (TRUE_WORDS.has(word)) return true;
      if (FALSE_WORDS.has(word)) return false;
      return text;
    }
  }
}

function scalarType(schema: unknown): Scalar | 'array' | undefined {
  const declared = (schema as { type?: unknown } | undefined)?.type;
  const types = Array.isArray(declared) ? declared : [declared];
  return types.find((t): t is Scalar | 'array' =>
    ['integer', 'number', 'boolean', 'array'].includes(String(t)),
  );
}

/** Converts a flat text object (query, path parameters, headers) in place by its schema's property types. */
function coerceText(data: unknown, schema: unknown): void {
  if (typeof data !== 'object' || data === null) return;
  const properties = (schema as { properties?: Record<string, unknown> }).properties ?? {};
  const values = data as Record<string, unknown>;
  for (const [name, value] of Object.entries(values)) {
    if (!(name in properties)) continue; // undeclared: reported as extra_forbidden (or an ignored header)
    const type = scalarType(properties[name]);
    // A repeated parameter that is not a list takes its last value, as FastAPI reads it.
    const single: unknown = Array.isArray(value) && type !== 'array' ? value.at(-1) : value;
    values[name] =
      typeof single === 'string' && type && type !== 'array' ? convertText(single, type) : single;
  }
}

export const validatorCompiler: FastifySchemaCompiler<FastifySchema> = ({ schema, httpPart }) => {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  if (httpPart === 'body') return validate;
  const check = validate;
  // Fastify reads `errors` off the function it called, so the wrapper carries them over.
  const textValidator = Object.assign(
    (data: unknown) => {
      coerceText(data, schema);
      const valid = check(data);
      textValidator.errors = check.errors ?? null;
      return valid;
    },
    { errors: null as ValidateFunction['errors'] },
  );
  return textValidator;
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

/** `'a', 'b' or 'c'`: how pydantic lists the expected values of an enum or literal. */
export function quoteList(values: readonly unknown[]): string {
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

/**
 * Schema annotation: what to do when the value is refused, appended to the error's message. Used where a
 * bound is stricter than the spec or not obvious (docs/api-limits.md).
 */
export const ERROR_HINT = 'x-error-hint';

/** Maps one Ajv error to a FastAPI ValidationError item, with the field's hint when it has one. */
function toValidationItem(error: ErrorObject, httpPart: string): ValidationErrorItem {
  const item = baseItem(error, httpPart);
  const hint: unknown = error.parentSchema?.[ERROR_HINT];
  const ownError = !['required', 'additionalProperties'].includes(error.keyword);
  return typeof hint === 'string' && ownError ? { ...item, msg: `${item.msg}; ${hint}` } : item;
}

function baseItem(error: ErrorObject, httpPart: string): ValidationErrorItem {
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
    case 'uniqueItems':
      return { loc, input, type: 'value_error', msg: 'Value error, items must not repeat' };
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

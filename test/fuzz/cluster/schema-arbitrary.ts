/**
 * Valid values of a JSON Schema (the route schemas as each service publishes them in /openapi.json) as
 * fast-check arbitraries: every type, bound, pattern, enum, nullable type array, list and free-form
 * object the cluster services use. Free-form values are small JSON without `__proto__` keys (refused by
 * rule, docs/api-limits.md).
 */
import fc from 'fast-check';
import type { JsonSchema } from './harness.js';

/** Keys of free-form objects: any text but `__proto__`. */
const freeKey = fc.string({ maxLength: 12, unit: 'binary' }).filter((k) => k !== '__proto__');

/** Small free-form JSON (strings in full Unicode, finite numbers). */
export const freeJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ maxLength: 20, unit: 'binary' }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(freeKey, tie('value'), { maxKeys: 4 }),
  ),
})).value;

export const freeObject: fc.Arbitrary<Record<string, unknown>> = fc.dictionary(freeKey, freeJson, {
  maxKeys: 5,
});

const typesOf = (schema: JsonSchema): string[] => {
  const t = schema.type;
  return Array.isArray(t) ? (t as string[]) : typeof t === 'string' ? [t] : [];
};

function stringArbitrary(schema: JsonSchema): fc.Arbitrary<string> {
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = Math.min(typeof schema.maxLength === 'number' ? schema.maxLength : 40, min + 40);
  if (typeof schema.pattern === 'string') {
    const pattern = new RegExp(schema.pattern, 'u');
    return fc
      .stringMatching(pattern)
      .map((s) => s.slice(0, typeof schema.maxLength === 'number' ? schema.maxLength : s.length))
      .filter((s) => s.length >= min && pattern.test(s));
  }
  return fc.string({ minLength: min, maxLength: max, unit: 'binary' });
}

function numberArbitrary(schema: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const num = (k: string) => (typeof schema[k] === 'number' ? schema[k] : undefined);
  const exclusiveMin = num('exclusiveMinimum');
  const exclusiveMax = num('exclusiveMaximum');
  if (integer) {
    const min = num('minimum') ?? (exclusiveMin !== undefined ? Math.floor(exclusiveMin) + 1 : -1_000_000);
    const max = num('maximum') ?? (exclusiveMax !== undefined ? Math.ceil(exclusiveMax) - 1 : 1_000_000);
    return fc.integer({ min, max });
  }
  return fc
    .double({
      min: num('minimum') ?? exclusiveMin ?? -1e6,
      max: num('maximum') ?? exclusiveMax ?? 1e6,
      minExcluded: exclusiveMin !== undefined && num('minimum') === undefined,
      maxExcluded: exclusiveMax !== undefined && num('maximum') === undefined,
      noNaN: true,
      noDefaultInfinity: true,
    })
    .filter((n) => !Object.is(n, -0));
}

/** A valid value of `schema`; `overrides` replace the arbitrary of top-level properties by name. */
export function valueOf(
  schema: JsonSchema,
  overrides: Record<string, fc.Arbitrary<unknown>> = {},
): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const types = typesOf(schema);
  if (types.length === 0) return freeJson;
  return fc.oneof(
    ...types.map((type): fc.Arbitrary<unknown> => {
      switch (type) {
        case 'null':
          return fc.constant(null);
        case 'boolean':
          return fc.boolean();
        case 'integer':
          return numberArbitrary(schema, true);
        case 'number':
          return numberArbitrary(schema, false);
        case 'string':
          return stringArbitrary(schema);
        case 'array': {
          const items = (schema.items as JsonSchema | undefined) ?? {};
          const minLength = typeof schema.minItems === 'number' ? schema.minItems : 0;
          const maxLength = Math.min(
            typeof schema.maxItems === 'number' ? schema.maxItems : 4,
            minLength + 4,
          );
          return schema.uniqueItems
            ? fc.uniqueArray(valueOf(items), { minLength, maxLength, selector: (v) => JSON.stringify(v) })
            : fc.array(valueOf(items), { minLength, maxLength });
        }
        default:
          return objectOf(schema, overrides);
      }
    }),
  );
}

function objectOf(schema: JsonSchema, overrides: Record<string, fc.Arbitrary<unknown>>) {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const names = Object.keys(properties);
  if (names.length === 0) {
    const extra = schema.additionalProperties;
    if (extra && typeof extra === 'object' && Object.keys(extra).length > 0) {
      return fc.dictionary(freeKey, valueOf(extra as JsonSchema), { maxKeys: 4 });
    }
    return freeObject;
  }
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const record = Object.fromEntries(
    names.map((name) => [name, overrides[name] ?? valueOf(properties[name] ?? {})]),
  );
  return fc.record(record, {
    requiredKeys: names.filter((n) => required.has(n) && properties[n]?.default === undefined),
  });
}

/**
 * TypeBox helpers for the services' request and response schemas. TypeBox only builds JSON Schema
 * objects (no framework), so the schemas and their static types can live on the ground floor and be
 * imported by the services (validation, serialisation), the CLI and the tests alike.
 * Nullable fields use JSON Schema type arrays (`["integer","null"]`) rather than `anyOf` unions so that a
 * bad value yields exactly one FastAPI-style error (e.g. `int_type`), not one per union branch.
 */
import { Type, type Static, type TSchema } from 'typebox';

type Primitive = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array';

/** `T | null` for a schema with a single primitive `type` (constraints such as `minimum` still apply). */
export function Nullable<T extends TSchema>(schema: T): ReturnType<typeof Type.Unsafe<Static<T> | null>> {
  const raw = schema as unknown as { type?: Primitive; enum?: unknown[] };
  const type = raw.type ? { type: [raw.type, 'null'] } : {};
  if (raw.enum) return Type.Unsafe<Static<T> | null>({ ...schema, ...type, enum: [...raw.enum, null] });
  if (!raw.type) throw new Error('Nullable() needs a schema with a single primitive type or an enum');
  return Type.Unsafe<Static<T> | null>({ ...schema, ...type });
}

/** A closed set of strings, published as a plain JSON Schema `enum` (one error type: `enum`). */
export function StringEnum<const V extends readonly string[]>(
  values: V,
  options: Record<string, unknown> = {},
) {
  return Type.Unsafe<V[number]>({ type: 'string', enum: [...values], ...options });
}

/** A free-form JSON object (the seed's "object (free-form)"): every key is kept when it is answered. */
export const FreeFormObject = Type.Record(Type.String(), Type.Unknown());

/** String-to-string maps: Kubernetes labels and annotations, job labels. */
export const StringMap = Type.Record(Type.String(), Type.String());

/** Shorthands for the many nullable fields of the answers. */
export const NullableString = Nullable(Type.String());
export const NullableInteger = Nullable(Type.Integer());
export const NullableNumber = Nullable(Type.Number());

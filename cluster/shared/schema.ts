/**
 * TypeBox helpers shared by the services' route schemas.
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

/** A free-form JSON object (the seed's "object (free-form)"). */
export const FreeFormObject = Type.Record(Type.String(), Type.Unknown());

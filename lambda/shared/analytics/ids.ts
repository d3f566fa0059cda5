/**
 * Identifiers of the analytics API. Application and API key ids are UUIDs we generate (v4); event ids
 * come from games and may be any RFC 9562 UUID (v1–v8, e.g. time-ordered v7). The Nil and Max UUIDs are
 * rejected: they cannot identify anything.
 */
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_RE.test(value);
}

/** Canonical (lower-case) form, so ids sent in upper case find the items we stored. */
export function canonicalUuid(value: string): string {
  return value.toLowerCase();
}

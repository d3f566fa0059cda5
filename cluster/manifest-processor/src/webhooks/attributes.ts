/** Plain JSON values ⇄ DynamoDB AttributeValues (the services use the low-level client only). */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

export function toAttribute(value: Json): AttributeValue {
  if (value === null) return { NULL: true };
  if (typeof value === 'string') return { S: value };
  if (typeof value === 'number') return { N: String(value) };
  if (typeof value === 'boolean') return { BOOL: value };
  if (Array.isArray(value)) return { L: value.map(toAttribute) };
  return { M: toItem(value) };
}

/** An item from an object; null and undefined fields are left out (absent, not NULL). */
export function toItem(record: { [key: string]: Json | undefined }): Record<string, AttributeValue> {
  const item: Record<string, AttributeValue> = {};
  for (const [key, value] of Object.entries(record)) {
    if (value !== undefined && value !== null) item[key] = toAttribute(value);
  }
  return item;
}

export function fromAttribute(attr: AttributeValue | undefined): Json {
  if (!attr) return null;
  if (attr.S !== undefined) return attr.S;
  if (attr.N !== undefined) return Number(attr.N);
  if (attr.BOOL !== undefined) return attr.BOOL;
  if (attr.L !== undefined) return attr.L.map(fromAttribute);
  if (attr.M !== undefined) return fromItem(attr.M);
  if (attr.SS !== undefined) return attr.SS;
  return null;
}

export function fromItem(item: Record<string, AttributeValue>): { [key: string]: Json } {
  const out: { [key: string]: Json } = {};
  for (const [key, attr] of Object.entries(item)) out[key] = fromAttribute(attr);
  return out;
}

export function str(value: Json | undefined): string | null {
  return typeof value === 'string' ? value : null;
}

export function num(value: Json | undefined): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

export function isConditionFailure(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

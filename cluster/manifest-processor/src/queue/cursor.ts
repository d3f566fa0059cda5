/**
 * Opaque list cursors: base64url of the DynamoDB key the next page starts after. Decoding validates the
 * shape strictly, so a tampered or foreign cursor is a 422 naming `cursor`, never a DynamoDB error.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { RequestValidationError } from '../../../shared/errors.js';
import { IDEMPOTENCY_PREFIX, RECORD_TYPE_JOB } from './record.js';
import { MAX_CURSOR_LENGTH } from './schemas.js';

type Key = Record<string, AttributeValue>;

interface CursorBody {
  v: 1;
  /** Job id (table key). */
  pk: string;
  /** created_at of that job (index sort key). */
  ca: string;
  /** target_region for region listings; absent for the all-regions listing. */
  tr?: string;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

export function encodeCursor(key: Key | undefined): string | null {
  const pk = key?.pk?.S;
  const ca = key?.created_at?.S;
  if (!pk || !ca) return null;
  const body: CursorBody = { v: 1, pk, ca, ...(key.target_region?.S ? { tr: key.target_region.S } : {}) };
  return Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
}

function invalid(raw: string, why: string): RequestValidationError {
  return new RequestValidationError([
    {
      loc: ['query', 'cursor'],
      msg: `Value error, invalid cursor: ${why}; pass next_cursor of the previous page unchanged`,
      type: 'value_error',
      input: raw.length > 64 ? `${raw.slice(0, 64)}…` : raw,
    },
  ]);
}

/** The start key for a listing by `targetRegion` (or overall when undefined); throws a 422 when unusable. */
export function decodeCursor(raw: string, targetRegion: string | undefined): Key {
  if (raw.length > MAX_CURSOR_LENGTH || !BASE64URL.test(raw)) throw invalid(raw, 'not base64url');
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw invalid(raw, 'not a cursor of this listing');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid(raw, 'malformed');
  const { v, pk, ca, tr } = body as Record<string, unknown>;
  if (v !== 1 || typeof pk !== 'string' || typeof ca !== 'string') throw invalid(raw, 'malformed');
  if (pk === '' || pk.length > 128 || pk.startsWith(IDEMPOTENCY_PREFIX) || !ISO_TIME.test(ca))
    throw invalid(raw, 'malformed');
  if (tr !== undefined && typeof tr !== 'string') throw invalid(raw, 'malformed');
  // A cursor only continues the listing it came from: the same index and the same region.
  if ((tr ?? undefined) !== targetRegion)
    throw invalid(raw, 'it belongs to a listing with another target_region');
  return {
    pk: { S: pk },
    created_at: { S: ca },
    ...(targetRegion !== undefined
      ? { target_region: { S: targetRegion } }
      : { record_type: { S: RECORD_TYPE_JOB } }),
  };
}

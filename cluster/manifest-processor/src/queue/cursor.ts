/**
 * The queue listings' cursors: the key the next page starts after, as an opaque cursor
 * (cluster/shared/dynamo.ts). Decoding validates the fields strictly, so a tampered or foreign cursor is a
 * 422 naming `cursor`, never a DynamoDB error.
 */
import { decodeOpaqueCursor, encodeOpaqueCursor, type StoredItem } from '../../../shared/dynamo.js';
import { RequestValidationError } from '../../../shared/errors.js';
import { IDEMPOTENCY_PREFIX, RECORD_TYPE_JOB } from './record.js';
import { MAX_CURSOR_LENGTH } from './schemas.js';

interface CursorBody {
  v: 1;
  /** Job id (table key). */
  pk: string;
  /** created_at of that job (index sort key). */
  ca: string;
  /** target_region for region listings; absent for the all-regions listing. */
  tr?: string;
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

export function encodeCursor(key: StoredItem | undefined): string | null {
  const pk = text(key?.pk);
  const ca = text(key?.created_at);
  const tr = text(key?.target_region);
  if (!pk || !ca) return null;
  const body: CursorBody = { v: 1, pk, ca, ...(tr ? { tr } : {}) };
  return encodeOpaqueCursor(body);
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
export function decodeCursor(raw: string, targetRegion: string | undefined): StoredItem {
  const decoded = decodeOpaqueCursor(raw, MAX_CURSOR_LENGTH);
  if ('problem' in decoded) throw invalid(raw, decoded.problem);
  const { v, pk, ca, tr } = decoded.position;
  if (v !== 1 || typeof pk !== 'string' || typeof ca !== 'string') throw invalid(raw, 'malformed');
  if (pk === '' || pk.length > 128 || pk.startsWith(IDEMPOTENCY_PREFIX) || !ISO_TIME.test(ca))
    throw invalid(raw, 'malformed');
  if (tr !== undefined && typeof tr !== 'string') throw invalid(raw, 'malformed');
  // A cursor only continues the listing it came from: the same index and the same region.
  if ((tr ?? undefined) !== targetRegion)
    throw invalid(raw, 'it belongs to a listing with another target_region');
  return {
    pk,
    created_at: ca,
    ...(targetRegion !== undefined ? { target_region: targetRegion } : { record_type: RECORD_TYPE_JOB }),
  };
}

// `limit` + `continue` paging over a list in stable key order (namespace/name), with the opaque token
// shaped like the real server's (base64 JSON {v, rv, start}) and `remainingItemCount`.

import { badRequest } from './status.js';
import type { KubeObject } from './types.js';
import { isRecord } from './types.js';

export interface Page {
  items: KubeObject[];
  continue?: string;
  remainingItemCount?: number;
}

function objectKey(obj: KubeObject): string {
  return obj.metadata.namespace ? `${obj.metadata.namespace}/${obj.metadata.name}` : obj.metadata.name;
}

export function parseLimit(raw: string | null): number {
  if (raw === null || raw === '') return 0;
  if (!/^\d+$/.test(raw)) throw badRequest(`invalid limit: "${raw}"`);
  return Number(raw);
}

function decodeStart(token: string): string {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (isRecord(parsed) && parsed.v === 'meta.k8s.io/v1' && typeof parsed.start === 'string')
      return parsed.start;
  } catch {
    // fall through to the 400 below
  }
  throw badRequest('continue key is not valid: invalid continue token');
}

/** Items must already be sorted by objectKey and filtered by selectors. */
export function paginate(
  items: KubeObject[],
  limit: number,
  token: string | null,
  resourceVersion: string,
): Page {
  let rest = items;
  if (token) {
    const start = decodeStart(token);
    rest = items.filter((o) => objectKey(o) > start);
  }
  if (limit <= 0 || rest.length <= limit) return { items: rest };
  const page = rest.slice(0, limit);
  const last = page[page.length - 1];
  const lastKey = last ? objectKey(last) : '';
  const cont = Buffer.from(
    JSON.stringify({ v: 'meta.k8s.io/v1', rv: Number(resourceVersion), start: lastKey }),
  ).toString('base64url');
  return { items: page, continue: cont, remainingItemCount: rest.length - limit };
}

/**
 * Delivery signatures: `X-GCO-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`.
 * The timestamp is signed with the body so a receiver can reject replays of an old delivery; `v1` names the
 * scheme so a future scheme can be sent alongside it during a migration.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-GCO-Signature';
export const EVENT_HEADER = 'X-GCO-Event';
export const DELIVERY_HEADER = 'X-GCO-Delivery';

function signatureOf(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

export function signatureHeader(secret: string, body: string, now: number = Date.now()): string {
  const t = Math.floor(now / 1000);
  return `t=${t},v1=${signatureOf(secret, t, body)}`;
}

/**
 * Receiver-side check (what docs/webhooks.md tells receivers to do): the header parses, the timestamp is
 * within `toleranceSeconds` of now, and one v1 signature matches in constant time.
 */
export function verifySignature(
  secret: string,
  header: string | undefined,
  body: string,
  opts: { toleranceSeconds?: number; now?: number } = {},
): boolean {
  if (!header) return false;
  let t: number | undefined;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const [key, value = ''] = part.trim().split('=', 2);
    if (key === 't' && /^\d{1,12}$/.test(value)) t = Number(value);
    if (key === 'v1' && /^[0-9a-f]{64}$/.test(value)) candidates.push(value);
  }
  if (t === undefined || candidates.length === 0) return false;
  const now = Math.floor((opts.now ?? Date.now()) / 1000);
  if (Math.abs(now - t) > (opts.toleranceSeconds ?? 300)) return false;
  const expected = Buffer.from(signatureOf(secret, t, body), 'hex');
  return candidates.some((c) => timingSafeEqual(Buffer.from(c, 'hex'), expected));
}

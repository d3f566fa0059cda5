/**
 * API keys: 32 random bytes from the CSPRNG, base64url, behind a short prefix (`gak_`, so secret scanners
 * and people recognise one). Only the SHA-256 of the full value is stored (the key-hash-index finds a key
 * by it); a plain hash suffices because the value carries 256 bits of entropy, so it cannot be guessed
 * from its hash. A masked form (prefix, first 4 and last 4 random characters) is kept for display.
 */
import { createHash, randomBytes } from 'node:crypto';

const API_KEY_PREFIX = 'gak_';
const KEY_BYTES = 32;
/** base64url of 32 bytes without padding is 43 characters. */
const API_KEY_RE = /^gak_[A-Za-z0-9_-]{43}$/;

export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(KEY_BYTES).toString('base64url');
}

/** Whether a presented value can be one of our keys at all (checked before any lookup). */
export function isWellFormedApiKey(value: string): boolean {
  return API_KEY_RE.test(value);
}

/** Lower-case hex SHA-256 of the full key value: the only form that is stored. */
export function hashApiKey(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** `gak_AbCd…WxYz`: enough to tell keys apart in a list, far too little to use. */
export function maskApiKey(value: string): string {
  const secret = value.slice(API_KEY_PREFIX.length);
  return `${API_KEY_PREFIX}${secret.slice(0, 4)}…${secret.slice(-4)}`;
}

/** A few characters of the hash for logs, so an operator can correlate attempts without the key. */
export function keyFingerprint(hash: string): string {
  return hash.slice(0, 6);
}

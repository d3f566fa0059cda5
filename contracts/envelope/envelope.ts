/**
 * HMAC envelope v1 (edge → services): signing for the edge Lambdas, verification for the cluster
 * services. Spec: docs/envelope.md. Only `node:crypto`, so it bundles into Lambdas and services alike.
 */
import {
  createHash,
  createHmac,
  createSecretKey,
  randomBytes,
  timingSafeEqual,
  type KeyObject,
} from 'node:crypto';
import { NonceCache } from './nonce-cache.js';
import type { KeySource, SigningKeys } from './signing-keys.js';

export type { KeySource } from './signing-keys.js';

export const ENVELOPE_VERSION = 'v1';

export const ENVELOPE_HEADERS = {
  version: 'x-svc-signature-version',
  timestamp: 'x-svc-timestamp',
  nonce: 'x-svc-nonce',
  signature: 'x-svc-signature',
  contentSha256: 'x-svc-content-sha256',
} as const;

/** Prefix shared by every envelope header; proxies strip all of them from incoming requests. */
const ENVELOPE_HEADER_PREFIX = 'x-svc-';

/** Exact-match paths served without an envelope. */
export const UNAUTHENTICATED_PATHS: ReadonlySet<string> = new Set([
  '/api/v1/health',
  '/healthz',
  '/metrics',
  '/readyz',
]);

export const DEFAULT_FRESHNESS_SECONDS = 30;
export const MIN_FRESHNESS_SECONDS = 5;
export const MAX_FRESHNESS_SECONDS = 300;
const DEFAULT_NONCE_CACHE_SIZE = 100_000;

const TIMESTAMP_RE = /^[0-9]{1,12}$/; // digits only; 12 caps the length far past year 33658
const NONCE_RE = /^[0-9a-f]{32}$/;
const SIGNATURE_RE = /^[0-9a-f]{64}$/;
// RFC 9110 token: keeps a newline (or anything else) from smuggling an extra canonical line.
const METHOD_RE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// eslint-disable-next-line no-control-regex -- control characters are exactly what we refuse
const TARGET_FORBIDDEN_RE = /[\x00-\x20\x7f]/;

/** SHA-256 of zero bytes: most requests (GET, DELETE, inference GETs) carry no body, so it is not recomputed. */
const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** Lowercase hex SHA-256 of the exact body bytes (strings as UTF-8); undefined/empty → hash of "". */
export function sha256Hex(body: Uint8Array | string | undefined): string {
  if (body === undefined || body.length === 0) return EMPTY_SHA256;
  const hash = createHash('sha256');
  hash.update(typeof body === 'string' ? Buffer.from(body, 'utf8') : body);
  return hash.digest('hex');
}

/** The six lines `v1`, timestamp, nonce, METHOD, target, body hash joined by `\n` (no trailing newline). */
export function canonicalString(p: {
  timestamp: string;
  nonce: string;
  method: string;
  target: string;
  bodySha256: string;
}): string {
  return [ENVELOPE_VERSION, p.timestamp, p.nonce, p.method.toUpperCase(), p.target, p.bodySha256].join('\n');
}

/**
 * The signing keys as prepared HMAC keys, so a verification does not copy and wrap the key on every
 * request (it showed in the inference proxy's profile). A process holds one or two keys (current and
 * previous, docs/envelope.md); the bound only stops a caller that signs with many keys from growing it.
 */
const preparedKeys = new Map<string, KeyObject>();
const MAX_PREPARED_KEYS = 8;

function preparedKey(key: string): KeyObject {
  let prepared = preparedKeys.get(key);
  if (prepared === undefined) {
    if (preparedKeys.size >= MAX_PREPARED_KEYS) preparedKeys.clear();
    prepared = createSecretKey(Buffer.from(key, 'utf8'));
    preparedKeys.set(key, prepared);
  }
  return prepared;
}

function hmac(key: string, canonical: string): Buffer {
  return createHmac('sha256', preparedKey(key)).update(canonical, 'utf8').digest();
}

/**
 * Signs a request and returns the five envelope headers (lowercase names). `target` is the path plus
 * `?` and the raw query exactly as it will be sent. Throws TypeError on input that cannot be sent
 * (empty key, non-token method, target with whitespace/control characters, malformed nonce/time).
 */
export function signEnvelope(p: {
  key: string;
  method: string;
  target: string;
  body?: Uint8Array | string;
  nowSeconds?: number;
  nonce?: string;
}): Record<string, string> {
  if (typeof p.key !== 'string' || p.key.length === 0)
    throw new TypeError('signEnvelope: key must be non-empty');
  if (!METHOD_RE.test(p.method)) throw new TypeError('signEnvelope: method must be an HTTP token');
  if (p.target.length === 0 || TARGET_FORBIDDEN_RE.test(p.target)) {
    throw new TypeError('signEnvelope: target must be non-empty without whitespace or control characters');
  }
  const nowSeconds = p.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (!Number.isSafeInteger(nowSeconds) || nowSeconds < 0) {
    throw new TypeError('signEnvelope: nowSeconds must be a non-negative integer');
  }
  const nonce = p.nonce ?? randomBytes(16).toString('hex');
  if (!NONCE_RE.test(nonce)) throw new TypeError('signEnvelope: nonce must be 32 lowercase hex characters');

  const timestamp = String(nowSeconds);
  const bodySha256 = sha256Hex(p.body);
  const canonical = canonicalString({ timestamp, nonce, method: p.method, target: p.target, bodySha256 });
  return {
    [ENVELOPE_HEADERS.version]: ENVELOPE_VERSION,
    [ENVELOPE_HEADERS.timestamp]: timestamp,
    [ENVELOPE_HEADERS.nonce]: nonce,
    [ENVELOPE_HEADERS.contentSha256]: bodySha256,
    [ENVELOPE_HEADERS.signature]: hmac(p.key, canonical).toString('hex'),
  };
}

/** Whether a header name (any case) belongs to the envelope namespace. */
export function isEnvelopeHeader(name: string): boolean {
  return name.toLowerCase().startsWith(ENVELOPE_HEADER_PREFIX);
}

/** Copy of `headers` without any `x-svc-*` header, any case (proxies call this before signing). */
export function stripEnvelopeHeaders<T>(headers: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!isEnvelopeHeader(name)) out[name] = value;
  }
  return out;
}

type EnvelopeRejectReason =
  | 'missing_header'
  | 'bad_version'
  | 'bad_timestamp'
  | 'stale_timestamp'
  | 'bad_nonce'
  | 'bad_signature_format'
  | 'body_hash_mismatch'
  | 'signature_mismatch'
  | 'replayed_nonce'
  | 'no_keys';

export type EnvelopeVerifyResult = { ok: true } | { ok: false; reason: EnvelopeRejectReason };

export interface EnvelopeRequest {
  method: string;
  /** exact path + '?' + raw query as on the wire */
  target: string;
  /** node-style, lowercase names */
  headers: Record<string, string | string[] | undefined>;
  body: Uint8Array | string | undefined;
}

export interface EnvelopeVerifierOptions {
  keys: KeySource;
  /** default 30; outside 5..300 → throw RangeError */
  freshnessSeconds?: number;
  /** default 100_000 */
  nonceCacheSize?: number;
  /** epoch ms, for tests */
  now?: () => number;
}

type EnvelopeHeaderName = (typeof ENVELOPE_HEADERS)[keyof typeof ENVELOPE_HEADERS];

/**
 * Collects the five envelope headers. A header counts as present only with exactly one string value:
 * an array (duplicated header) or the same name in two spellings is ambiguous, so it is "missing".
 */
function readEnvelopeHeaders(
  headers: EnvelopeRequest['headers'],
): Record<EnvelopeHeaderName, string> | undefined {
  const found = new Map<string, string | null>();
  for (const [rawName, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const name = rawName.toLowerCase();
    if (!name.startsWith(ENVELOPE_HEADER_PREFIX)) continue;
    found.set(name, found.has(name) || typeof value !== 'string' ? null : value);
  }
  const pick = (name: EnvelopeHeaderName): string | undefined => found.get(name) ?? undefined;
  const version = pick(ENVELOPE_HEADERS.version);
  const timestamp = pick(ENVELOPE_HEADERS.timestamp);
  const nonce = pick(ENVELOPE_HEADERS.nonce);
  const signature = pick(ENVELOPE_HEADERS.signature);
  const contentSha256 = pick(ENVELOPE_HEADERS.contentSha256);
  if (
    version === undefined ||
    timestamp === undefined ||
    nonce === undefined ||
    signature === undefined ||
    contentSha256 === undefined
  ) {
    return undefined;
  }
  return {
    [ENVELOPE_HEADERS.version]: version,
    [ENVELOPE_HEADERS.timestamp]: timestamp,
    [ENVELOPE_HEADERS.nonce]: nonce,
    [ENVELOPE_HEADERS.signature]: signature,
    [ENVELOPE_HEADERS.contentSha256]: contentSha256,
  };
}

/** Non-empty keys only: an empty HMAC key would accept anyone's signature. */
function acceptedKeys(keys: SigningKeys | undefined): string[] {
  if (keys === undefined) return [];
  return [keys.current, keys.previous].filter((k): k is string => typeof k === 'string' && k.length > 0);
}

/** True if `signature` matches ANY key; every key is checked (no early exit) so timing does not reveal which. */
function matchesAnyKey(keys: readonly string[], canonical: string, signature: Buffer): boolean {
  let matched = false;
  for (const key of keys) {
    const ok = timingSafeEqual(hmac(key, canonical), signature);
    matched = matched || ok;
  }
  return matched;
}

const reject = (reason: EnvelopeRejectReason): EnvelopeVerifyResult => ({ ok: false, reason });

/**
 * Verifies envelope v1. Never throws for a bad request or a failing key source; the reason is for the
 * log only — callers answer 403 `{"detail":"Forbidden"}` whatever it is. One instance per process:
 * it owns the replay cache.
 */
export class EnvelopeVerifier {
  private readonly keys: KeySource;
  private readonly freshnessSeconds: number;
  private readonly now: () => number;
  private readonly nonces: NonceCache;

  constructor(opts: EnvelopeVerifierOptions) {
    const freshness = opts.freshnessSeconds ?? DEFAULT_FRESHNESS_SECONDS;
    if (
      !Number.isInteger(freshness) ||
      freshness < MIN_FRESHNESS_SECONDS ||
      freshness > MAX_FRESHNESS_SECONDS
    ) {
      throw new RangeError(
        `EnvelopeVerifier: freshnessSeconds must be an integer in ${MIN_FRESHNESS_SECONDS}..${MAX_FRESHNESS_SECONDS}`,
      );
    }
    const cacheSize = opts.nonceCacheSize ?? DEFAULT_NONCE_CACHE_SIZE;
    if (!Number.isInteger(cacheSize) || cacheSize < 1) {
      throw new RangeError('EnvelopeVerifier: nonceCacheSize must be an integer ≥ 1');
    }
    this.keys = opts.keys;
    this.freshnessSeconds = freshness;
    this.now = opts.now ?? Date.now;
    // TTL = freshness: a nonce is kept until its timestamp leaves the acceptance window.
    this.nonces = new NonceCache({ maxEntries: cacheSize, ttlSeconds: freshness });
  }

  async verify(req: EnvelopeRequest): Promise<EnvelopeVerifyResult> {
    const h = readEnvelopeHeaders(req.headers);
    if (h === undefined) return reject('missing_header');
    if (h[ENVELOPE_HEADERS.version] !== ENVELOPE_VERSION) return reject('bad_version');

    const timestamp = h[ENVELOPE_HEADERS.timestamp];
    if (!TIMESTAMP_RE.test(timestamp)) return reject('bad_timestamp');
    const ts = Number(timestamp);
    const nowSeconds = Math.floor(this.now() / 1000);
    if (Math.abs(nowSeconds - ts) > this.freshnessSeconds) return reject('stale_timestamp');

    const nonce = h[ENVELOPE_HEADERS.nonce];
    if (!NONCE_RE.test(nonce)) return reject('bad_nonce');
    const signatureHex = h[ENVELOPE_HEADERS.signature];
    if (!SIGNATURE_RE.test(signatureHex)) return reject('bad_signature_format');

    const bodySha256 = sha256Hex(req.body);
    // Plain comparison: both sides are public (the sender's header and the hash of the body it sent); the
    // secret-dependent comparison is the signature's, below.
    if (bodySha256 !== h[ENVELOPE_HEADERS.contentSha256]) return reject('body_hash_mismatch');

    const canonical = canonicalString({
      timestamp,
      nonce,
      method: req.method,
      target: req.target,
      bodySha256,
    });
    const signature = Buffer.from(signatureHex, 'hex'); // 32 bytes: format checked above

    let keys: string[];
    try {
      keys = acceptedKeys(await this.keys.get());
    } catch {
      keys = [];
    }
    let matched = keys.length > 0 && matchesAnyKey(keys, canonical, signature);
    if (!matched) {
      // Keys may have rotated since they were cached; the source rate-limits this call.
      let refreshed: string[] = [];
      try {
        refreshed = acceptedKeys(await this.keys.refreshAfterMiss());
      } catch {
        refreshed = [];
      }
      if (keys.length === 0 && refreshed.length === 0) return reject('no_keys');
      matched = refreshed.length > 0 && matchesAnyKey(refreshed, canonical, signature);
    }
    if (!matched) return reject('signature_mismatch');

    // Only now: a forged request must not be able to fill the cache or burn a legitimate nonce.
    if (!this.nonces.checkAndRemember(nonce, ts, nowSeconds)) return reject('replayed_nonce');
    return { ok: true };
  }
}

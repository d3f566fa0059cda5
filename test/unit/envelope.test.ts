import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  DEFAULT_FRESHNESS_SECONDS,
  ENVELOPE_HEADERS,
  ENVELOPE_VERSION,
  EnvelopeVerifier,
  UNAUTHENTICATED_PATHS,
  canonicalString,
  sha256Hex,
  signEnvelope,
  stripEnvelopeHeaders,
} from '../../contracts/envelope/envelope.js';
import type {
  EnvelopeRequest,
  EnvelopeVerifierOptions,
  KeySource,
} from '../../contracts/envelope/envelope.js';
import { NonceCache } from '../../contracts/envelope/nonce-cache.js';
import { CachedKeySource, staticKeySource } from '../../contracts/envelope/signing-keys.js';
import type { SigningKeys } from '../../contracts/envelope/signing-keys.js';

const REFERENCE = fileURLToPath(new URL('../fixtures/envelope_reference.py', import.meta.url));
const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

const KEY = 'unit-test-signing-key-current';
const OLD_KEY = 'unit-test-signing-key-previous';
const T0 = 1_700_000_000; // seconds
const NONCE = '0123456789abcdef0123456789abcdef';
const TARGET = '/api/v1/jobs/svc-jobs/train-1?tail=100&since_seconds=60';
const BODY = '{"priority":50,"labels":{"team":"ml"}}';

/** Mutable clock in epoch ms, shared by verifier and key source. */
function clock(startMs = T0 * 1000 + 250): { now: () => number; set: (ms: number) => void } {
  let t = startMs;
  return { now: () => t, set: (ms) => (t = ms) };
}

interface SignedReq {
  key?: string;
  method?: string;
  target?: string;
  body?: Uint8Array | string;
  nowSeconds?: number;
  nonce?: string;
}

/** A correctly signed request (defaults: POST TARGET with BODY at T0, signed with KEY). */
function signed(p: SignedReq = {}): EnvelopeRequest & { headers: Record<string, string> } {
  const method = p.method ?? 'POST';
  const target = p.target ?? TARGET;
  const body = 'body' in p ? p.body : BODY;
  const headers = signEnvelope({
    key: p.key ?? KEY,
    method,
    target,
    ...(body === undefined ? {} : { body }),
    nowSeconds: p.nowSeconds ?? T0,
    nonce: p.nonce ?? NONCE,
  });
  return { method, target, headers, body };
}

function verifier(opts: Partial<EnvelopeVerifierOptions> = {}): EnvelopeVerifier {
  return new EnvelopeVerifier({
    keys: staticKeySource({ current: KEY }),
    now: () => T0 * 1000 + 250,
    ...opts,
  });
}

const rejected = (reason: string) => ({ ok: false, reason });

/** A key fetcher that counts its calls (ESM jest has no `jest` global without an extra import). */
function counted(keys: () => SigningKeys): { (): Promise<SigningKeys>; calls: number } {
  const fn = Object.assign(
    () => {
      fn.calls++;
      return Promise.resolve(keys());
    },
    { calls: 0 },
  );
  return fn;
}

interface ReferenceInput {
  key: string;
  method: string;
  target: string;
  body: Uint8Array | string | undefined;
  timestamp: number;
  nonce: string;
}

/** Signs with the independent Python implementation (stdlib hmac/hashlib). */
function referenceSign(v: ReferenceInput): Record<string, string> {
  const bytes = v.body === undefined ? Buffer.alloc(0) : Buffer.from(v.body);
  const input = JSON.stringify({
    key: v.key,
    method: v.method,
    target: v.target,
    body_b64: bytes.toString('base64'),
    timestamp: v.timestamp,
    nonce: v.nonce,
  });
  const r = spawnSync('python3', [REFERENCE, '--canonical'], { input, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`reference signer failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, string>;
}

describe('fixed vectors', () => {
  // Literals computed by test/fixtures/envelope_reference.py and `openssl dgst -sha256 -hmac`.
  test('worked example from docs/envelope.md (POST, JSON body, query)', () => {
    const body = '{"name":"train-1","priority":50}';
    const target = '/api/v1/jobs?namespace=svc-jobs&dry_run=true';
    const timestamp = '1735689600';
    const nonce = '0f1e2d3c4b5a69788796a5b4c3d2e1f0';
    const bodySha256 = '21649a83f8694c9e8a85bfd2e6a061c8fef41f7a9d3b63f9459cbaceafe9db4d';
    expect(sha256Hex(body)).toBe(bodySha256);
    expect(canonicalString({ timestamp, nonce, method: 'POST', target, bodySha256 })).toBe(
      'v1\n1735689600\n0f1e2d3c4b5a69788796a5b4c3d2e1f0\nPOST\n/api/v1/jobs?namespace=svc-jobs&dry_run=true\n' +
        '21649a83f8694c9e8a85bfd2e6a061c8fef41f7a9d3b63f9459cbaceafe9db4d',
    );
    expect(
      signEnvelope({
        key: 'gco-example-signing-key-0123456789',
        method: 'POST',
        target,
        body,
        nowSeconds: 1735689600,
        nonce,
      }),
    ).toEqual({
      'x-svc-signature-version': 'v1',
      'x-svc-timestamp': '1735689600',
      'x-svc-nonce': '0f1e2d3c4b5a69788796a5b4c3d2e1f0',
      'x-svc-content-sha256': '21649a83f8694c9e8a85bfd2e6a061c8fef41f7a9d3b63f9459cbaceafe9db4d',
      'x-svc-signature': '9a2b47e4e3bd8430258c98eabea2c84be4a810834dc8229d9ede37a6a8f2a051',
    });
  });

  test('GET, empty body, repeated query keys, lower-case method upper-cased', () => {
    const target = '/api/v1/jobs?label=a&label=b&limit=10';
    const nonce = 'ffeeddccbbaa99887766554433221100';
    expect(
      canonicalString({ timestamp: '1700000000', nonce, method: 'get', target, bodySha256: EMPTY_SHA256 }),
    ).toBe(`v1\n1700000000\n${nonce}\nGET\n${target}\n${EMPTY_SHA256}`);
    const h = signEnvelope({ key: 'rotated-key-2', method: 'get', target, nowSeconds: 1700000000, nonce });
    expect(h['x-svc-content-sha256']).toBe(EMPTY_SHA256);
    expect(h['x-svc-signature']).toBe('fba631602343973f31ce74fc507726557881c06a3712038d5810d0e9f9cc7b40');
  });

  test('sha256Hex: undefined, "" and empty bytes all hash ""; strings are UTF-8', () => {
    expect(sha256Hex(undefined)).toBe(EMPTY_SHA256);
    expect(sha256Hex('')).toBe(EMPTY_SHA256);
    expect(sha256Hex(new Uint8Array(0))).toBe(EMPTY_SHA256);
    expect(sha256Hex('é')).toBe(sha256Hex(new Uint8Array([0xc3, 0xa9])));
  });
});

describe('cross-check with the independent Python reference', () => {
  const binary = new Uint8Array(256).map((_, i) => i);
  const vectors: Array<[string, ReferenceInput]> = [
    [
      'empty body',
      { key: KEY, method: 'GET', target: '/api/v1/templates', body: undefined, timestamp: T0, nonce: NONCE },
    ],
    [
      'binary body',
      { key: KEY, method: 'PUT', target: '/inference/m/v1', body: binary, timestamp: T0 + 1, nonce: NONCE },
    ],
    [
      'unicode path and unicode key',
      {
        key: 'clé-ünïcødé-🔑',
        method: 'POST',
        target: '/api/v1/jobs/ns/naïve-模型-😀?q=é',
        body: '{"name":"ünïcødé"}',
        timestamp: 1,
        nonce: 'abcdefabcdefabcdefabcdefabcdef00',
      },
    ],
    [
      'query with repeated keys, raw encoding kept',
      {
        key: OLD_KEY,
        method: 'delete',
        target: '/api/v1/jobs?label=a&label=b&label=a%2Cb&x=%7E&empty=&flag',
        body: '',
        timestamp: 9_999_999_999,
        nonce: 'ffffffffffffffffffffffffffffffff',
      },
    ],
  ];

  test.each(vectors)('%s', (_name, v) => {
    const ref = referenceSign(v);
    const ts = signEnvelope({
      key: v.key,
      method: v.method,
      target: v.target,
      ...(v.body === undefined ? {} : { body: v.body }),
      nowSeconds: v.timestamp,
      nonce: v.nonce,
    });
    const { canonical, ...refHeaders } = ref;
    expect(ts).toEqual(refHeaders);
    expect(
      canonicalString({
        timestamp: String(v.timestamp),
        nonce: v.nonce,
        method: v.method,
        target: v.target,
        bodySha256: sha256Hex(v.body),
      }),
    ).toBe(canonical);
  });
});

describe('signEnvelope', () => {
  test('returns exactly the five lowercase headers with a fresh random nonce and current time', () => {
    const before = Math.floor(Date.now() / 1000);
    const a = signEnvelope({ key: KEY, method: 'GET', target: '/x' });
    const b = signEnvelope({ key: KEY, method: 'GET', target: '/x' });
    expect(Object.keys(a).sort()).toEqual(Object.values(ENVELOPE_HEADERS).sort());
    expect(a[ENVELOPE_HEADERS.version]).toBe(ENVELOPE_VERSION);
    expect(a[ENVELOPE_HEADERS.nonce]).toMatch(/^[0-9a-f]{32}$/);
    expect(a[ENVELOPE_HEADERS.nonce]).not.toBe(b[ENVELOPE_HEADERS.nonce]);
    expect(a[ENVELOPE_HEADERS.signature]).toMatch(/^[0-9a-f]{64}$/);
    expect(Number(a[ENVELOPE_HEADERS.timestamp])).toBeGreaterThanOrEqual(before);
  });

  test.each<[string, SignedReq]>([
    ['empty key', { key: '' }],
    ['method with newline', { method: 'GET\n/evil' }],
    ['method with space', { method: 'GE T' }],
    ['empty target', { target: '' }],
    ['target with newline', { target: '/a\nb' }],
    ['target with space', { target: '/a b' }],
    ['upper-case nonce', { nonce: NONCE.toUpperCase() }],
    ['short nonce', { nonce: 'abc' }],
    ['negative time', { nowSeconds: -1 }],
    ['fractional time', { nowSeconds: 1.5 }],
  ])('refuses %s', (_name, p) => {
    expect(() => signed(p)).toThrow(TypeError);
  });

  test('error messages never contain the key', () => {
    try {
      signEnvelope({ key: 'super-secret-key', method: 'GET', target: '/a\nb' });
      throw new Error('expected a throw');
    } catch (err) {
      expect((err as Error).message).not.toContain('super-secret-key');
    }
  });
});

describe('stripEnvelopeHeaders / constants', () => {
  test('drops every x-svc-* header in any case and keeps the rest', () => {
    const input = {
      'X-SVC-Signature': 'forged',
      'x-svc-nonce': 'n',
      'X-Svc-Target-Region': 'eu-west-1',
      'x-svc-anything-else': ['a', 'b'],
      'x-svcx': 'kept: not the x-svc- prefix',
      'content-type': 'application/json',
      Accept: ['a', 'b'],
    };
    expect(stripEnvelopeHeaders(input)).toEqual({
      'x-svcx': 'kept: not the x-svc- prefix',
      'content-type': 'application/json',
      Accept: ['a', 'b'],
    });
    expect(input['X-SVC-Signature']).toBe('forged'); // input untouched
  });

  test('unauthenticated paths are exactly the four exact-match paths', () => {
    expect([...UNAUTHENTICATED_PATHS].sort()).toEqual(['/api/v1/health', '/healthz', '/metrics', '/readyz']);
    expect(UNAUTHENTICATED_PATHS.has('/healthz/')).toBe(false);
    expect(DEFAULT_FRESHNESS_SECONDS).toBe(30);
  });
});

describe('EnvelopeVerifier accepts', () => {
  test('a correctly signed request (string body, bytes body, no body)', async () => {
    const v = verifier();
    await expect(v.verify(signed())).resolves.toEqual({ ok: true });
    const bytes = new Uint8Array([0, 1, 2, 255]);
    await expect(v.verify(signed({ body: bytes, nonce: 'a'.repeat(32) }))).resolves.toEqual({ ok: true });
    // Same bytes delivered as a Buffer (what Fastify hands over).
    const asBuffer = { ...signed({ body: bytes, nonce: 'b'.repeat(32) }), body: Buffer.from(bytes) };
    await expect(v.verify(asBuffer)).resolves.toEqual({ ok: true });
    await expect(
      v.verify(signed({ method: 'GET', body: undefined, nonce: 'c'.repeat(32), target: '/api/v1/jobs' })),
    ).resolves.toEqual({ ok: true });
  });

  test('lower-case method on the verifying side (canonical upper-cases it)', async () => {
    const req = signed({ method: 'POST' });
    await expect(verifier().verify({ ...req, method: 'post' })).resolves.toEqual({ ok: true });
  });

  test('timestamp just inside the window on both sides', async () => {
    const v = verifier();
    const past = signed({ nowSeconds: T0 - DEFAULT_FRESHNESS_SECONDS, nonce: 'a'.repeat(32) });
    const future = signed({ nowSeconds: T0 + DEFAULT_FRESHNESS_SECONDS, nonce: 'b'.repeat(32) });
    await expect(v.verify(past)).resolves.toEqual({ ok: true });
    await expect(v.verify(future)).resolves.toEqual({ ok: true });
  });

  test('a custom freshness window', async () => {
    const v = verifier({ freshnessSeconds: 300 });
    await expect(v.verify(signed({ nowSeconds: T0 - 300 }))).resolves.toEqual({ ok: true });
    const tight = verifier({ freshnessSeconds: 5 });
    await expect(tight.verify(signed({ nowSeconds: T0 - 6 }))).resolves.toEqual(rejected('stale_timestamp'));
  });

  test('previous key', async () => {
    const v = verifier({ keys: staticKeySource({ current: KEY, previous: OLD_KEY }) });
    await expect(v.verify(signed({ key: OLD_KEY }))).resolves.toEqual({ ok: true });
  });

  test('key rotation: {current:new, previous:old} accepts both old and new signers', async () => {
    const v = verifier({ keys: staticKeySource({ current: 'new-key', previous: 'old-key' }) });
    await expect(v.verify(signed({ key: 'new-key', nonce: 'a'.repeat(32) }))).resolves.toEqual({ ok: true });
    await expect(v.verify(signed({ key: 'old-key', nonce: 'b'.repeat(32) }))).resolves.toEqual({ ok: true });
    await expect(v.verify(signed({ key: 'older-key', nonce: 'c'.repeat(32) }))).resolves.toEqual(
      rejected('signature_mismatch'),
    );
  });
});

describe('EnvelopeVerifier rejects', () => {
  test.each(Object.values(ENVELOPE_HEADERS))('missing %s', async (name) => {
    const req = signed();
    delete req.headers[name];
    await expect(verifier().verify(req)).resolves.toEqual(rejected('missing_header'));
  });

  test('a duplicated header given as an array (ambiguous)', async () => {
    const req = signed();
    const nonce = req.headers[ENVELOPE_HEADERS.nonce] ?? '';
    await expect(
      verifier().verify({ ...req, headers: { ...req.headers, [ENVELOPE_HEADERS.nonce]: [nonce, nonce] } }),
    ).resolves.toEqual(rejected('missing_header'));
    await expect(
      verifier().verify({ ...req, headers: { ...req.headers, [ENVELOPE_HEADERS.nonce]: [nonce] } }),
    ).resolves.toEqual(rejected('missing_header'));
  });

  test('the same header in two spellings (ambiguous)', async () => {
    const req = signed();
    req.headers['X-Svc-Signature'] = req.headers[ENVELOPE_HEADERS.signature] ?? '';
    await expect(verifier().verify(req)).resolves.toEqual(rejected('missing_header'));
  });

  test('wrong version', async () => {
    const req = signed();
    req.headers[ENVELOPE_HEADERS.version] = 'v2';
    await expect(verifier().verify(req)).resolves.toEqual(rejected('bad_version'));
    req.headers[ENVELOPE_HEADERS.version] = 'V1';
    await expect(verifier().verify(req)).resolves.toEqual(rejected('bad_version'));
  });

  test('stale timestamp (one second beyond the window)', async () => {
    const req = signed({ nowSeconds: T0 - DEFAULT_FRESHNESS_SECONDS - 1 });
    await expect(verifier().verify(req)).resolves.toEqual(rejected('stale_timestamp'));
  });

  test('future timestamp beyond the window', async () => {
    const req = signed({ nowSeconds: T0 + DEFAULT_FRESHNESS_SECONDS + 1 });
    await expect(verifier().verify(req)).resolves.toEqual(rejected('stale_timestamp'));
  });

  test.each([
    'abc',
    '17e8',
    '-1700000000',
    '+1700000000',
    ' 1700000000',
    '1700000000.5',
    '0x6553f100',
    '',
    '1'.repeat(13),
  ])('non-numeric timestamp %j', async (value) => {
    const req = signed();
    req.headers[ENVELOPE_HEADERS.timestamp] = value;
    await expect(verifier().verify(req)).resolves.toEqual(rejected('bad_timestamp'));
  });

  test.each([NONCE.toUpperCase(), NONCE.slice(1), `${NONCE}0`, 'g'.repeat(32), ''])(
    'bad nonce %j',
    async (value) => {
      const req = signed();
      req.headers[ENVELOPE_HEADERS.nonce] = value;
      await expect(verifier().verify(req)).resolves.toEqual(rejected('bad_nonce'));
    },
  );

  test('upper-case hex signature', async () => {
    const req = signed();
    req.headers[ENVELOPE_HEADERS.signature] = (req.headers[ENVELOPE_HEADERS.signature] ?? '').toUpperCase();
    await expect(verifier().verify(req)).resolves.toEqual(rejected('bad_signature_format'));
  });

  test.each(['', 'ab', 'z'.repeat(64), 'a'.repeat(63), 'a'.repeat(65)])(
    'malformed signature %j',
    async (value) => {
      const req = signed();
      req.headers[ENVELOPE_HEADERS.signature] = value;
      await expect(verifier().verify(req)).resolves.toEqual(rejected('bad_signature_format'));
    },
  );

  test('replayed nonce', async () => {
    const v = verifier();
    const req = signed();
    await expect(v.verify(req)).resolves.toEqual({ ok: true });
    await expect(v.verify(req)).resolves.toEqual(rejected('replayed_nonce'));
  });

  test('tampered method', async () => {
    await expect(verifier().verify({ ...signed(), method: 'PUT' })).resolves.toEqual(
      rejected('signature_mismatch'),
    );
  });

  test('tampered path', async () => {
    const target = TARGET.replace('train-1', 'train-2');
    await expect(verifier().verify({ ...signed(), target })).resolves.toEqual(rejected('signature_mismatch'));
  });

  test('tampered query (one byte)', async () => {
    const target = TARGET.replace('tail=100', 'tail=900');
    expect(target.length).toBe(TARGET.length);
    await expect(verifier().verify({ ...signed(), target })).resolves.toEqual(rejected('signature_mismatch'));
    // Dropping the query entirely is also a different target.
    await expect(verifier().verify({ ...signed(), target: TARGET.split('?')[0] ?? '' })).resolves.toEqual(
      rejected('signature_mismatch'),
    );
  });

  test('tampered body (content hash header left alone)', async () => {
    const body = BODY.replace('50', '99');
    await expect(verifier().verify({ ...signed(), body })).resolves.toEqual(rejected('body_hash_mismatch'));
  });

  test('tampered body with a recomputed content hash header', async () => {
    const body = BODY.replace('50', '99');
    const req = signed();
    req.headers[ENVELOPE_HEADERS.contentSha256] = sha256Hex(body);
    await expect(verifier().verify({ ...req, body })).resolves.toEqual(rejected('signature_mismatch'));
  });

  test('body-hash header that does not match the body', async () => {
    const req = signed();
    req.headers[ENVELOPE_HEADERS.contentSha256] = EMPTY_SHA256;
    await expect(verifier().verify(req)).resolves.toEqual(rejected('body_hash_mismatch'));
    req.headers[ENVELOPE_HEADERS.contentSha256] = sha256Hex(BODY).toUpperCase();
    await expect(verifier().verify(req)).resolves.toEqual(rejected('body_hash_mismatch'));
  });

  test('wrong key', async () => {
    await expect(verifier().verify(signed({ key: 'some-other-key' }))).resolves.toEqual(
      rejected('signature_mismatch'),
    );
  });

  test('no usable keys (key source fails)', async () => {
    const failing: KeySource = {
      get: () => Promise.reject(new Error('secrets store down')),
      refreshAfterMiss: () => Promise.reject(new Error('secrets store down')),
    };
    await expect(verifier({ keys: failing }).verify(signed())).resolves.toEqual(rejected('no_keys'));
  });

  test('checks run in the documented order (header → version → time → nonce → signature format)', async () => {
    const req = signed({ nowSeconds: T0 - 1000 });
    req.headers[ENVELOPE_HEADERS.nonce] = 'bad';
    req.headers[ENVELOPE_HEADERS.signature] = 'bad';
    await expect(verifier().verify(req)).resolves.toEqual(rejected('stale_timestamp'));
    req.headers[ENVELOPE_HEADERS.version] = 'v0';
    await expect(verifier().verify(req)).resolves.toEqual(rejected('bad_version'));
  });
});

describe('EnvelopeVerifier replay protection', () => {
  test('a forged signature does not consume the nonce', async () => {
    const v = verifier();
    const forged = signed({ key: 'attacker-guess' });
    await expect(v.verify(forged)).resolves.toEqual(rejected('signature_mismatch'));
    await expect(v.verify(signed())).resolves.toEqual({ ok: true });
  });

  test('a full cache fails closed: an evicted nonce is still refused (watermark)', async () => {
    const v = verifier({ nonceCacheSize: 2 });
    const first = signed({ nowSeconds: T0 - 2, nonce: 'a'.repeat(32) });
    await expect(v.verify(first)).resolves.toEqual({ ok: true });
    await expect(v.verify(signed({ nowSeconds: T0 - 1, nonce: 'b'.repeat(32) }))).resolves.toEqual({
      ok: true,
    });
    await expect(v.verify(signed({ nowSeconds: T0, nonce: 'c'.repeat(32) }))).resolves.toEqual({ ok: true });
    await expect(v.verify(first)).resolves.toEqual(rejected('replayed_nonce'));
  });

  test('a nonce is remembered until its timestamp leaves the window', async () => {
    const c = clock(T0 * 1000);
    const v = verifier({ now: c.now });
    const req = signed({ nowSeconds: T0 + 30 }); // signer clock 30 s ahead: accepted until T0+60
    await expect(v.verify(req)).resolves.toEqual({ ok: true });
    c.set((T0 + 60) * 1000 + 999);
    await expect(v.verify(req)).resolves.toEqual(rejected('replayed_nonce'));
    c.set((T0 + 61) * 1000);
    await expect(v.verify(req)).resolves.toEqual(rejected('stale_timestamp'));
  });
});

describe('EnvelopeVerifier key refresh on miss', () => {
  test('a CachedKeySource whose fetch starts returning a new key is consulted after a miss (≤ once per 5 s)', async () => {
    const c = clock();
    let served: SigningKeys = { current: 'key-a' };
    const fetch = counted(() => served);
    const keys = new CachedKeySource(fetch, { now: c.now });
    const v = new EnvelopeVerifier({ keys, now: c.now });
    const at = (ms: number, key: string, nonceChar: string): Promise<unknown> => {
      c.set(T0 * 1000 + ms);
      return v.verify(signed({ key, nowSeconds: Math.floor(c.now() / 1000), nonce: nonceChar.repeat(32) }));
    };

    await expect(at(0, 'key-a', '1')).resolves.toEqual({ ok: true });
    expect(fetch.calls).toBe(1);

    served = { current: 'key-b', previous: 'key-a' }; // rotated in the secrets store
    await expect(at(1_000, 'key-b', '2')).resolves.toEqual({ ok: true }); // miss → refresh → accepted
    expect(fetch.calls).toBe(2);
    await expect(at(1_500, 'key-a', '3')).resolves.toEqual({ ok: true }); // previous still accepted, no fetch
    expect(fetch.calls).toBe(2);

    served = { current: 'key-c', previous: 'key-b' };
    await expect(at(5_999, 'key-c', '4')).resolves.toEqual(rejected('signature_mismatch')); // rate-limited
    await expect(at(5_999, 'forged', '5')).resolves.toEqual(rejected('signature_mismatch'));
    expect(fetch.calls).toBe(2);
    await expect(at(6_000, 'key-c', '6')).resolves.toEqual({ ok: true }); // 5 s after the last refresh
    expect(fetch.calls).toBe(3);
  });

  test('a refresh that yields nothing new still rejects with signature_mismatch', async () => {
    const fetch = counted(() => ({ current: KEY }));
    const v = verifier({ keys: new CachedKeySource(fetch, { now: () => T0 * 1000 }) });
    await expect(v.verify(signed({ key: 'wrong' }))).resolves.toEqual(rejected('signature_mismatch'));
    expect(fetch.calls).toBe(2); // initial get + one miss refresh
  });
});

describe('EnvelopeVerifier options', () => {
  test.each([0, 4, 4.9, 7.5, 301, Number.NaN, Number.POSITIVE_INFINITY, -30])(
    'freshnessSeconds %p throws RangeError',
    (freshnessSeconds) => {
      expect(() => verifier({ freshnessSeconds })).toThrow(RangeError);
    },
  );

  test.each([5, 30, 300])('freshnessSeconds %p is accepted', (freshnessSeconds) => {
    expect(() => verifier({ freshnessSeconds })).not.toThrow();
  });

  test.each([0, -1, 1.5])('nonceCacheSize %p throws RangeError', (nonceCacheSize) => {
    expect(() => verifier({ nonceCacheSize })).toThrow(RangeError);
  });
});

describe('NonceCache', () => {
  test('first sighting true, replay false', () => {
    const c = new NonceCache({ maxEntries: 10, ttlSeconds: 30 });
    expect(c.checkAndRemember('n1', 100, 100)).toBe(true);
    expect(c.checkAndRemember('n1', 100, 100)).toBe(false);
    expect(c.checkAndRemember('n1', 101, 101)).toBe(false); // same nonce, other timestamp: still refused
    expect(c.checkAndRemember('n2', 100, 100)).toBe(true);
    expect(c.size).toBe(2);
  });

  test('remembers until timestamp + ttl, then purges lazily', () => {
    const c = new NonceCache({ maxEntries: 10, ttlSeconds: 30 });
    c.checkAndRemember('n1', 100, 100);
    c.checkAndRemember('n2', 110, 110);
    expect(c.checkAndRemember('n1', 100, 130)).toBe(false); // 100 + 30 not yet passed
    expect(c.checkAndRemember('x', 131, 131)).toBe(true); // purges n1
    expect(c.size).toBe(2);
    expect(c.checkAndRemember('n2', 110, 141)).toBe(true); // n2 gone too: would be stale upstream anyway
  });

  test('bounded: evicts the oldest timestamp and refuses anything at or below the watermark', () => {
    const c = new NonceCache({ maxEntries: 3, ttlSeconds: 30 });
    expect(c.checkAndRemember('a', 100, 100)).toBe(true);
    expect(c.checkAndRemember('b', 101, 101)).toBe(true);
    expect(c.checkAndRemember('c', 102, 102)).toBe(true);
    expect(c.watermark).toBe(Number.NEGATIVE_INFINITY);
    expect(c.checkAndRemember('d', 103, 103)).toBe(true); // full: evicts 'a'
    expect(c.size).toBe(3);
    expect(c.watermark).toBe(100);
    expect(c.checkAndRemember('a', 100, 103)).toBe(false); // evicted, but still refused (fail closed)
    expect(c.checkAndRemember('fresh-but-old', 100, 103)).toBe(false); // not provably new
    expect(c.checkAndRemember('b', 101, 103)).toBe(false); // still cached
    expect(c.checkAndRemember('e', 104, 104)).toBe(true);
    expect(c.watermark).toBe(101);
    expect(c.checkAndRemember('b', 101, 104)).toBe(false);
  });

  test('evicts by smallest timestamp, not insertion order (a fast clock cannot raise the watermark)', () => {
    const c = new NonceCache({ maxEntries: 3, ttlSeconds: 30 });
    c.checkAndRemember('ahead', 125, 100); // signer clock 25 s ahead arrives first
    c.checkAndRemember('b', 100, 100);
    c.checkAndRemember('c', 101, 101);
    c.checkAndRemember('d', 102, 102);
    expect(c.watermark).toBe(100);
    expect(c.checkAndRemember('ahead', 125, 102)).toBe(false); // still cached
  });

  test('a full cache accepts an incoming request older than everything without storing it', () => {
    const c = new NonceCache({ maxEntries: 2, ttlSeconds: 30 });
    c.checkAndRemember('a', 110, 110);
    c.checkAndRemember('b', 111, 111);
    expect(c.checkAndRemember('old', 105, 111)).toBe(true);
    expect(c.size).toBe(2);
    expect(c.watermark).toBe(105);
    expect(c.checkAndRemember('old', 105, 111)).toBe(false);
    expect(c.checkAndRemember('a', 110, 111)).toBe(false);
  });

  /** 400 s of 5 req/s, timestamps skewed ±ttl, a third of them replays of accepted nonces. */
  function simulate(maxEntries: number): { fresh: number; freshAccepted: number } {
    const ttl = 30;
    const c = new NonceCache({ maxEntries, ttlSeconds: ttl });
    const accepted = new Map<string, number>();
    let seed = 42;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    let fresh = 0;
    let freshAccepted = 0;
    for (let now = 1000; now < 1400; now++) {
      for (let i = 0; i < 5; i++) {
        const entries = [...accepted.entries()];
        const pick = rand(3) === 0 ? entries[rand(entries.length)] : undefined;
        const [nonce, ts] = pick ?? [`n${now}-${i}`, now - ttl + rand(2 * ttl + 1)];
        if (Math.abs(now - ts) > ttl) continue; // the verifier rejects it before the cache
        const first = c.checkAndRemember(nonce, ts, now);
        if (pick !== undefined) {
          expect(first).toBe(false); // a replay inside the window is never accepted
        } else {
          fresh++;
          if (first) freshAccepted++;
        }
        if (first) accepted.set(nonce, ts);
        expect(c.size).toBeLessThanOrEqual(maxEntries);
      }
    }
    return { fresh, freshAccepted };
  }

  test('randomized: never exceeds its bound, never accepts a replay; sized at rate × 2 × ttl it refuses nothing', () => {
    const small = simulate(50);
    expect(small.freshAccepted).toBeLessThan(small.fresh); // the watermark did kick in
    expect(small.freshAccepted).toBeGreaterThan(small.fresh / 3); // but costs some, not most, traffic
    const sized = simulate(5 * 2 * 30);
    expect(sized.freshAccepted).toBe(sized.fresh);
  });

  test('rejects bad options', () => {
    expect(() => new NonceCache({ maxEntries: 0, ttlSeconds: 30 })).toThrow(RangeError);
    expect(() => new NonceCache({ maxEntries: 1, ttlSeconds: -1 })).toThrow(RangeError);
  });
});

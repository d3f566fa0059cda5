import {
  CachedKeySource,
  keySourceFromEnv,
  parseSigningKeys,
  staticKeySource,
  validateSigningKeys,
} from '../../contracts/envelope/signing-keys.js';
import type { SigningKeys } from '../../contracts/envelope/signing-keys.js';

const SECRET = 'S3CR3T-key-material-do-not-log';
const OLD_SECRET = 'OLD-S3CR3T-key-material';

/** Runs `fn`, expects it to throw synchronously, returns the error. */
function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a throw');
}

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

function expectNoKeyMaterial(err: Error): void {
  expect(err.message).not.toContain(SECRET);
  expect(err.message).not.toContain(OLD_SECRET);
  expect(err.message).not.toContain('S3CR3T');
}

/** Controllable async fetcher: counts calls; each call takes the next scripted outcome. */
function scriptedFetch(initial: SigningKeys) {
  let next: () => Promise<SigningKeys> = () => Promise.resolve(initial);
  const fn = Object.assign(
    () => {
      fn.calls++;
      return next();
    },
    {
      calls: 0,
      serve(keys: SigningKeys) {
        next = () => Promise.resolve(keys);
      },
      fail(message = `secrets store said no; value was ${SECRET}`) {
        next = () => Promise.reject(new Error(message));
      },
      /** Next calls stay pending until `resolve` is called. */
      hold(): { resolve: (k: SigningKeys) => void } {
        let resolve: (k: SigningKeys) => void = () => undefined;
        const pending = new Promise<SigningKeys>((r) => (resolve = r));
        next = () => pending;
        return { resolve: (k) => resolve(k) };
      },
    },
  );
  return fn;
}

function clock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => (t += ms) };
}

describe('parseSigningKeys', () => {
  test('current and previous', () => {
    expect(parseSigningKeys(JSON.stringify({ current: SECRET, previous: OLD_SECRET }))).toEqual({
      current: SECRET,
      previous: OLD_SECRET,
    });
  });

  test('current only; previous null; unknown fields ignored', () => {
    expect(parseSigningKeys(`{"current":"${SECRET}"}`)).toEqual({ current: SECRET });
    expect(parseSigningKeys(`{"current":"${SECRET}","previous":null}`)).toEqual({ current: SECRET });
    const parsed = parseSigningKeys(`{"current":"${SECRET}","rotatedAt":"2025-01-01T00:00:00Z"}`);
    expect(parsed).toEqual({ current: SECRET });
    expect(Object.isFrozen(parsed)).toBe(true);
  });

  test('key material is kept byte for byte (no trimming)', () => {
    expect(parseSigningKeys('{"current":" spaced key \\n"}').current).toBe(' spaced key \n');
  });

  test.each([
    ['not JSON at all', SECRET],
    ['broken JSON around the key', `{"current":"${SECRET}",}`],
    ['a JSON string', JSON.stringify(SECRET)],
    ['an array', JSON.stringify([SECRET, OLD_SECRET])],
    ['null', 'null'],
    ['missing current', JSON.stringify({ previous: OLD_SECRET })],
    ['empty current', JSON.stringify({ current: '', previous: OLD_SECRET })],
    ['numeric current', JSON.stringify({ current: 123456, previous: OLD_SECRET })],
    ['empty previous', JSON.stringify({ current: SECRET, previous: '' })],
    ['object previous', JSON.stringify({ current: SECRET, previous: { v: OLD_SECRET } })],
    ['empty input', ''],
  ])('%s → clear Error without key material', (_name, raw) => {
    const err = thrown(() => parseSigningKeys(raw));
    expect(err.message).toMatch(/^signing keys: /);
    expectNoKeyMaterial(err);
  });

  test('validateSigningKeys drops unknown fields and names the label', () => {
    expect(validateSigningKeys({ current: 'a', previous: 'b', extra: SECRET })).toEqual({
      current: 'a',
      previous: 'b',
    });
    expect(thrown(() => validateSigningKeys(undefined, 'my source')).message).toMatch(/^my source: /);
  });
});

describe('staticKeySource', () => {
  test('serves the keys and never refreshes', async () => {
    const src = staticKeySource({ current: SECRET, previous: OLD_SECRET });
    await expect(src.get()).resolves.toEqual({ current: SECRET, previous: OLD_SECRET });
    await expect(src.refreshAfterMiss()).resolves.toBeUndefined();
  });

  test('refuses an empty key without echoing anything', () => {
    expect(() => staticKeySource({ current: '' })).toThrow(/"current" must be a non-empty string/);
    expectNoKeyMaterial(thrown(() => staticKeySource({ current: SECRET, previous: '' })));
  });
});

describe('keySourceFromEnv', () => {
  test('SIGNING_KEYS wins over SIGNING_KEY', async () => {
    const src = keySourceFromEnv({
      SIGNING_KEYS: JSON.stringify({ current: SECRET, previous: OLD_SECRET }),
      SIGNING_KEY: 'ignored',
    });
    await expect(src.get()).resolves.toEqual({ current: SECRET, previous: OLD_SECRET });
  });

  test('SIGNING_KEY alone is the current key', async () => {
    await expect(keySourceFromEnv({ SIGNING_KEY: SECRET }).get()).resolves.toEqual({ current: SECRET });
  });

  test('an empty SIGNING_KEYS counts as unset', async () => {
    await expect(keySourceFromEnv({ SIGNING_KEYS: '', SIGNING_KEY: SECRET }).get()).resolves.toEqual({
      current: SECRET,
    });
  });

  test('neither variable → Error naming both', () => {
    for (const env of [{}, { SIGNING_KEY: '', SIGNING_KEYS: '' }]) {
      const err = thrown(() => keySourceFromEnv(env));
      expect(err.message).toMatch(/\bSIGNING_KEYS\b/);
      expect(err.message).toMatch(/\bSIGNING_KEY\b/);
    }
  });

  test('malformed SIGNING_KEYS → Error naming the variable, without key material', () => {
    for (const raw of [
      SECRET,
      `{"current":"${SECRET}"`,
      JSON.stringify({ current: '', previous: OLD_SECRET }),
    ]) {
      const err = thrown(() => keySourceFromEnv({ SIGNING_KEYS: raw, SIGNING_KEY: SECRET }));
      expect(err.message).toMatch(/^SIGNING_KEYS: /);
      expectNoKeyMaterial(err);
    }
  });

  test('defaults to process.env', async () => {
    const saved = { keys: process.env['SIGNING_KEYS'], key: process.env['SIGNING_KEY'] };
    try {
      delete process.env['SIGNING_KEYS'];
      process.env['SIGNING_KEY'] = SECRET;
      await expect(keySourceFromEnv().get()).resolves.toEqual({ current: SECRET });
    } finally {
      for (const [name, value] of [
        ['SIGNING_KEYS', saved.keys],
        ['SIGNING_KEY', saved.key],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});

describe('CachedKeySource', () => {
  const A = { current: 'key-a' };
  const B = { current: 'key-b', previous: 'key-a' };

  test('caches for at most 60 s', async () => {
    const c = clock();
    const fetch = scriptedFetch(A);
    const src = new CachedKeySource(fetch, { now: c.now });
    await expect(src.get()).resolves.toEqual(A);
    fetch.serve(B);
    c.advance(59_999);
    await expect(src.get()).resolves.toEqual(A);
    expect(fetch.calls).toBe(1);
    c.advance(1);
    await expect(src.get()).resolves.toEqual(B);
    expect(fetch.calls).toBe(2);
  });

  test('honours a custom maxAgeMs', async () => {
    const c = clock();
    const fetch = scriptedFetch(A);
    const src = new CachedKeySource(fetch, { now: c.now, maxAgeMs: 1_000 });
    await src.get();
    c.advance(1_000);
    await src.get();
    expect(fetch.calls).toBe(2);
  });

  test('concurrent get() calls share one in-flight fetch', async () => {
    const fetch = scriptedFetch(A);
    const held = fetch.hold();
    const src = new CachedKeySource(fetch, { now: clock().now });
    const all = Promise.all([src.get(), src.get(), src.get(), src.refreshAfterMiss()]);
    expect(fetch.calls).toBe(1);
    held.resolve(B);
    await expect(all).resolves.toEqual([B, B, B, B]);
    expect(fetch.calls).toBe(1);
    await expect(src.get()).resolves.toEqual(B);
    expect(fetch.calls).toBe(1);
  });

  test('refreshAfterMiss fetches at most once per 5 s and updates the cache', async () => {
    const c = clock();
    const fetch = scriptedFetch(A);
    const src = new CachedKeySource(fetch, { now: c.now });
    await src.get();
    fetch.serve(B);
    await expect(src.refreshAfterMiss()).resolves.toEqual(B);
    expect(fetch.calls).toBe(2);
    await expect(src.get()).resolves.toEqual(B); // cache replaced
    c.advance(4_999);
    await expect(src.refreshAfterMiss()).resolves.toBeUndefined();
    expect(fetch.calls).toBe(2);
    c.advance(1);
    await expect(src.refreshAfterMiss()).resolves.toEqual(B);
    expect(fetch.calls).toBe(3);
  });

  test('concurrent misses trigger a single fetch', async () => {
    const fetch = scriptedFetch(A);
    const src = new CachedKeySource(fetch, { now: clock().now });
    await src.get();
    fetch.serve(B);
    const results = await Promise.all([
      src.refreshAfterMiss(),
      src.refreshAfterMiss(),
      src.refreshAfterMiss(),
    ]);
    expect(results).toEqual([B, undefined, undefined]);
    expect(fetch.calls).toBe(2);
  });

  test('custom missRefreshMinIntervalMs', async () => {
    const c = clock();
    const fetch = scriptedFetch(A);
    const src = new CachedKeySource(fetch, { now: c.now, missRefreshMinIntervalMs: 100 });
    await src.refreshAfterMiss();
    c.advance(100);
    await src.refreshAfterMiss();
    expect(fetch.calls).toBe(2);
  });

  describe('fetch failure', () => {
    test('with nothing cached: get() rejects with a message free of key material', async () => {
      const fetch = scriptedFetch(A);
      fetch.fail();
      const src = new CachedKeySource(fetch, { now: clock().now });
      const err = await rejection(src.get());
      expect(err.message).toBe('signing keys: fetch failed');
      expectNoKeyMaterial(err);
    });

    test('an invalid fetched value counts as a failure', async () => {
      const fetch = scriptedFetch({ current: '' });
      const src = new CachedKeySource(fetch, { now: clock().now });
      await expect(src.get()).rejects.toThrow('signing keys: fetch failed');
    });

    test('serves the expired value for at most 5 min past expiry, then fails closed', async () => {
      const c = clock();
      const fetch = scriptedFetch(A);
      const src = new CachedKeySource(fetch, { now: c.now });
      await src.get();
      fetch.fail();
      c.advance(60_000); // expired: refresh fails → stale value
      await expect(src.get()).resolves.toEqual(A);
      expect(fetch.calls).toBe(2);
      c.advance(300_000 - 1); // last millisecond of the grace
      await expect(src.get()).resolves.toEqual(A);
      expect(fetch.calls).toBe(3);
      c.advance(1);
      await expect(src.get()).rejects.toThrow('signing keys: fetch failed');
    });

    test('staleOnErrorMs: 0 disables stale serving', async () => {
      const c = clock();
      const fetch = scriptedFetch(A);
      const src = new CachedKeySource(fetch, { now: c.now, staleOnErrorMs: 0 });
      await src.get();
      fetch.fail();
      c.advance(60_000);
      await expect(src.get()).rejects.toThrow('signing keys: fetch failed');
    });

    test('does not retry for 1 s after a failure, then recovers', async () => {
      const c = clock();
      const fetch = scriptedFetch(A);
      const src = new CachedKeySource(fetch, { now: c.now });
      fetch.fail();
      await expect(src.get()).rejects.toThrow('fetch failed');
      c.advance(999);
      await expect(src.get()).rejects.toThrow('fetch failed'); // answered from the recorded failure
      expect(fetch.calls).toBe(1);
      fetch.serve(B);
      c.advance(1);
      await expect(src.get()).resolves.toEqual(B);
      expect(fetch.calls).toBe(2);
    });

    test('refreshAfterMiss never throws: failure → undefined, cache kept', async () => {
      const fetch = scriptedFetch(A);
      const src = new CachedKeySource(fetch, { now: clock().now });
      await src.get();
      fetch.fail();
      await expect(src.refreshAfterMiss()).resolves.toBeUndefined();
      await expect(src.get()).resolves.toEqual(A);
    });

    test('a fetcher that throws synchronously does not wedge the source', async () => {
      const c = clock();
      let calls = 0;
      const src = new CachedKeySource(
        () => {
          calls++;
          if (calls === 1) throw new Error(`sync boom ${SECRET}`);
          return Promise.resolve(A);
        },
        { now: c.now },
      );
      expectNoKeyMaterial(await rejection(src.get()));
      c.advance(1_000);
      await expect(src.get()).resolves.toEqual(A);
      expect(calls).toBe(2);
    });
  });

  test.each(['maxAgeMs', 'missRefreshMinIntervalMs', 'staleOnErrorMs', 'errorRetryIntervalMs'])(
    'negative %s → RangeError',
    (name) => {
      expect(() => new CachedKeySource(() => Promise.resolve(A), { [name]: -1 })).toThrow(RangeError);
    },
  );
});

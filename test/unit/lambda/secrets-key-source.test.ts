import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import {
  secretsManagerFetcher,
  secretsManagerKeySource,
} from '../../../contracts/runtime/secrets-key-source.js';
import { FakeSecret, SECRET_ARN } from './fake-secrets.js';

const KEY = 'sm-signing-key-0123456789abcdef0123';

test('reads AWSCURRENT and validates it', async () => {
  const secret = new FakeSecret(JSON.stringify({ current: KEY, previous: 'older-key-0123456789abcdef' }));
  expect(await secretsManagerFetcher(secret.client, SECRET_ARN)()).toEqual({
    current: KEY,
    previous: 'older-key-0123456789abcdef',
  });
  expect(secret.mock.commandCalls(GetSecretValueCommand)[0]?.args[0].input).toEqual({
    SecretId: SECRET_ARN,
    VersionStage: 'AWSCURRENT',
  });
});

test('a malformed secret fails without echoing its text', async () => {
  const secret = new FakeSecret(`{"current": "${KEY}", oops}`);
  const error = await secretsManagerFetcher(secret.client, SECRET_ARN)().catch((e: Error) => e);
  expect(error).toBeInstanceOf(Error);
  expect((error as Error).message).toMatch(/not valid JSON/);
  expect((error as Error).message).not.toContain(KEY);
});

test('cached for the max age: one fetch serves many requests, a new value is seen after expiry', async () => {
  const secret = new FakeSecret(JSON.stringify({ current: KEY }));
  let now = 1_000_000;
  const source = secretsManagerKeySource(secret.client, SECRET_ARN, { now: () => now });
  await Promise.all([source.get(), source.get(), source.get()]);
  expect(secret.getCalls).toBe(1);
  secret.setCurrent(JSON.stringify({ current: 'rotated-key-0123456789abcdef', previous: KEY }), 'v-2');
  now += 59_000;
  expect((await source.get()).current).toBe(KEY);
  now += 2_000;
  expect(await source.get()).toEqual({ current: 'rotated-key-0123456789abcdef', previous: KEY });
  expect(secret.getCalls).toBe(2);
});

test('a Secrets Manager outage serves the expired keys for a while (stale-on-error)', async () => {
  const secret = new FakeSecret(JSON.stringify({ current: KEY }));
  let now = 0;
  const source = secretsManagerKeySource(secret.client, SECRET_ARN, { now: () => now });
  await source.get();
  secret.mock.on(GetSecretValueCommand).rejects(new Error('ThrottlingException'));
  now += 61_000;
  expect((await source.get()).current).toBe(KEY);
  now += 400_000;
  await expect(source.get()).rejects.toThrow('signing keys: fetch failed');
});

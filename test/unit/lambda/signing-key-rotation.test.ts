import { PutSecretValueCommand, UpdateSecretVersionStageCommand } from '@aws-sdk/client-secrets-manager';
import type { SecretsManagerRotationEvent } from 'aws-lambda';
import {
  createHandler,
  generateSigningKey,
  RotationError,
} from '../../../lambda/signing-key-rotation/index.js';
import { EnvelopeVerifier, signEnvelope } from '../../../contracts/envelope/envelope.js';
import { parseSigningKeys, staticKeySource } from '../../../contracts/envelope/signing-keys.js';
import { SECRET_ARN, FakeSecret } from './fake-secrets.js';
import { memoryLogger } from './events.js';

const OLD = 'old-signing-key-0123456789abcdef0123';
const TOKEN = 'c0ffee00-1111-4222-8333-444455556666';

function event(step: SecretsManagerRotationEvent['Step'], token = TOKEN): SecretsManagerRotationEvent {
  return { Step: step, SecretId: SECRET_ARN, ClientRequestToken: token };
}

function setup(initial = JSON.stringify({ current: OLD })) {
  const secret = new FakeSecret(initial);
  const logger = memoryLogger();
  let n = 0;
  const handler = createHandler({
    client: secret.client,
    logger,
    generateKey: () => `new-key-${++n}-${'x'.repeat(32)}`,
  });
  return { secret, logger, handler };
}

test('generated keys are 32 random bytes, base64url', () => {
  const a = generateSigningKey();
  expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(Buffer.from(a, 'base64url')).toHaveLength(32);
  expect(generateSigningKey()).not.toBe(a);
});

test('the four steps rotate {current: OLD} to {current: NEW, previous: OLD}', async () => {
  const { secret, handler, logger } = setup();
  secret.startRotation(TOKEN);
  for (const step of ['createSecret', 'setSecret', 'testSecret', 'finishSecret'] as const) {
    await handler(event(step));
  }
  const keys = parseSigningKeys(secret.current() ?? '');
  expect(keys).toEqual({ current: `new-key-1-${'x'.repeat(32)}`, previous: OLD });
  expect(secret.stagesOf(TOKEN)).toContain('AWSCURRENT');
  expect(secret.stagesOf('v-initial')).toEqual(['AWSPREVIOUS']);
  // Logs name steps and version ids, never a key.
  expect(logger.text()).not.toContain(OLD);
  expect(logger.text()).not.toContain('new-key-1');
});

test('a verifier holding the rotated secret accepts requests still signed with the old key', async () => {
  const { secret, handler } = setup();
  secret.startRotation(TOKEN);
  for (const step of ['createSecret', 'setSecret', 'testSecret', 'finishSecret'] as const)
    await handler(event(step));
  const verifier = new EnvelopeVerifier({ keys: staticKeySource(parseSigningKeys(secret.current() ?? '')) });
  const headers = signEnvelope({ key: OLD, method: 'GET', target: '/api/v1/jobs' });
  expect(await verifier.verify({ method: 'GET', target: '/api/v1/jobs', headers, body: undefined })).toEqual({
    ok: true,
  });
});

test('createSecret is idempotent: a retry with the same token writes nothing new', async () => {
  const { secret, handler } = setup();
  secret.startRotation(TOKEN);
  await handler(event('createSecret'));
  const pending = secret.versions.get(TOKEN)?.value;
  await handler(event('createSecret'));
  expect(secret.mock.commandCalls(PutSecretValueCommand)).toHaveLength(1);
  expect(secret.versions.get(TOKEN)?.value).toBe(pending);
});

test('every step is safe to retry, finishSecret included', async () => {
  const { secret, handler } = setup();
  secret.startRotation(TOKEN);
  for (const step of [
    'createSecret',
    'createSecret',
    'setSecret',
    'testSecret',
    'testSecret',
    'finishSecret',
    'finishSecret',
  ] as const) {
    await handler(event(step));
  }
  expect(secret.mock.commandCalls(UpdateSecretVersionStageCommand)).toHaveLength(1);
  expect(parseSigningKeys(secret.current() ?? '').previous).toBe(OLD);
});

test('two rotations in a row: previous is always the key that was current', async () => {
  const { secret, handler } = setup();
  for (const token of ['t-1', 't-2']) {
    secret.startRotation(token);
    for (const step of ['createSecret', 'setSecret', 'testSecret', 'finishSecret'] as const)
      await handler(event(step, token));
  }
  expect(parseSigningKeys(secret.current() ?? '')).toEqual({
    current: `new-key-2-${'x'.repeat(32)}`,
    previous: `new-key-1-${'x'.repeat(32)}`,
  });
});

test('a version not staged for rotation is an error', async () => {
  const { secret, handler, logger } = setup();
  await expect(handler(event('createSecret', 'unknown-token'))).rejects.toThrow(/has no stage for rotation/);
  secret.versions.set('orphan', { stages: new Set(['SOMETHING']) });
  await expect(handler(event('createSecret', 'orphan'))).rejects.toThrow(/not set as AWSPENDING/);
  expect(logger.lines.filter((l) => l.level === 'error')).toHaveLength(2);
});

test('rotation disabled, an unknown step, or a malformed current secret stop the rotation', async () => {
  const disabled = setup();
  disabled.secret.rotationEnabled = false;
  disabled.secret.startRotation(TOKEN);
  await expect(disabled.handler(event('createSecret'))).rejects.toBeInstanceOf(RotationError);

  const unknown = setup();
  unknown.secret.startRotation(TOKEN);
  await expect(unknown.handler({ ...event('createSecret'), Step: 'dance' as 'setSecret' })).rejects.toThrow(
    /unknown rotation step/,
  );

  const malformed = setup('not json {');
  malformed.secret.startRotation(TOKEN);
  await expect(malformed.handler(event('createSecret'))).rejects.toThrow(/not valid JSON/);
  expect(malformed.secret.mock.commandCalls(PutSecretValueCommand)).toHaveLength(0);
});

test('testSecret refuses a pending version that is not a valid key pair', async () => {
  const { secret, handler } = setup();
  secret.startRotation(TOKEN);
  for (const bad of [
    '{"current":"","previous":"x"}',
    `{"current":"new-one-0123456789"}`,
    `{"current":"${OLD}","previous":"${OLD}"}`,
    'garbage',
  ]) {
    secret.versions.set(TOKEN, { stages: new Set(['AWSPENDING']), value: bad });
    await expect(handler(event('testSecret'))).rejects.toBeInstanceOf(RotationError);
  }
});

test('finishSecret on the version that is already AWSCURRENT does nothing', async () => {
  const { secret, handler } = setup();
  await handler(event('finishSecret', 'v-initial'));
  expect(secret.mock.commandCalls(UpdateSecretVersionStageCommand)).toHaveLength(0);
});

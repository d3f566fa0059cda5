import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { envelopeVerifierFromEnv } from '../../cluster/shared/envelope-verifier.js';
import { serviceKeySource } from '../../cluster/shared/signing-keys.js';
import { EnvironmentError } from '../../contracts/env/reader.js';
import { EnvelopeVerifier, signEnvelope } from '../../contracts/envelope/envelope.js';
import { staticKeySource } from '../../contracts/envelope/signing-keys.js';

describe('cluster services: where envelope keys come from', () => {
  test('SIGNING_KEY_SECRET_ARN: keys from Secrets Manager; a rotation is picked up on a verification miss', async () => {
    const sm = mockClient(SecretsManagerClient);
    sm.on(GetSecretValueCommand).resolves({
      SecretString: JSON.stringify({ current: 'key-one-0123456789' }),
    });
    const client = new SecretsManagerClient({
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
    });
    const verifier = new EnvelopeVerifier({
      keys: serviceKeySource(
        { SIGNING_KEY_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:gco-signing' },
        client,
      ),
    });
    const request = (key: string) => ({
      method: 'GET',
      target: '/api/v1/status',
      headers: signEnvelope({ key, method: 'GET', target: '/api/v1/status' }),
      body: undefined,
    });
    expect(await verifier.verify(request('key-one-0123456789'))).toEqual({ ok: true });
    expect(sm.commandCalls(GetSecretValueCommand)[0]?.args[0].input).toMatchObject({
      VersionStage: 'AWSCURRENT',
    });

    // The rotation Lambda moved AWSCURRENT: the new key verifies (refresh on miss), the old one still does.
    sm.on(GetSecretValueCommand).resolves({
      SecretString: JSON.stringify({ current: 'key-two-0123456789', previous: 'key-one-0123456789' }),
    });
    expect(await verifier.verify(request('key-two-0123456789'))).toEqual({ ok: true });
    expect(await verifier.verify(request('key-one-0123456789'))).toEqual({ ok: true });
    sm.restore();
  });

  test('without a secret ARN: SIGNING_KEY from the environment', async () => {
    const verifier = new EnvelopeVerifier({
      keys: serviceKeySource({ SIGNING_KEY: 'local-key-0123456789' }),
    });
    const headers = signEnvelope({ key: 'local-key-0123456789', method: 'GET', target: '/' });
    expect(await verifier.verify({ method: 'GET', target: '/', headers, body: undefined })).toEqual({
      ok: true,
    });
  });
});

describe('envelopeVerifierFromEnv: the verifier every service wires', () => {
  const KEY = 'local-key-0123456789';
  /** A request signed `ageSeconds` ago. */
  const signedAgo = (ageSeconds: number, key = KEY) => ({
    method: 'GET',
    target: '/api/v1/status',
    headers: signEnvelope({
      key,
      method: 'GET',
      target: '/api/v1/status',
      nowSeconds: Math.floor(Date.now() / 1000) - ageSeconds,
    }),
    body: undefined,
  });

  test('ENVELOPE_FRESHNESS_SECONDS sets the window; 30 s without it', async () => {
    const narrow = envelopeVerifierFromEnv({ SIGNING_KEY: KEY, ENVELOPE_FRESHNESS_SECONDS: '5' });
    const standard = envelopeVerifierFromEnv({ SIGNING_KEY: KEY });
    expect(await narrow.verify(signedAgo(15))).toEqual({ ok: false, reason: 'stale_timestamp' });
    expect(await standard.verify(signedAgo(15))).toEqual({ ok: true });
    expect(await standard.verify(signedAgo(60))).toEqual({ ok: false, reason: 'stale_timestamp' });
  });

  test('a window outside 5..300 s is a configuration error naming the variable', () => {
    expect(() => envelopeVerifierFromEnv({ SIGNING_KEY: KEY, ENVELOPE_FRESHNESS_SECONDS: '301' })).toThrow(
      new EnvironmentError(['ENVELOPE_FRESHNESS_SECONDS: expected a value in 5..300, got 301']),
    );
  });

  test('given keys replace the environment’s', async () => {
    const verifier = envelopeVerifierFromEnv({}, staticKeySource({ current: 'injected-key-0123456789' }));
    expect(await verifier.verify(signedAgo(0, 'injected-key-0123456789'))).toEqual({ ok: true });
  });
});

/**
 * Envelope signing keys from Secrets Manager (`{"current":"…","previous":"…"}`, maintained by the
 * signing-key-rotation Lambda), behind CachedKeySource: 60 s cache, one shared in-flight fetch,
 * stale-on-error. Signers use `current`; verifiers accept both.
 */
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import {
  CachedKeySource,
  parseSigningKeys,
  type CachedKeySourceOptions,
  type SigningKeys,
} from '../envelope/signing-keys.js';

/** Reads and validates AWSCURRENT of the secret. Errors never contain the secret's text. */
export function secretsManagerFetcher(
  client: Pick<SecretsManagerClient, 'send'>,
  secretId: string,
): () => Promise<SigningKeys> {
  return async () => {
    const out = await client.send(
      new GetSecretValueCommand({ SecretId: secretId, VersionStage: 'AWSCURRENT' }),
    );
    if (typeof out.SecretString !== 'string') {
      throw new Error('signing keys: the secret has no SecretString (binary secrets are not supported)');
    }
    return parseSigningKeys(out.SecretString);
  };
}

export function secretsManagerKeySource(
  client: Pick<SecretsManagerClient, 'send'>,
  secretId: string,
  opts: CachedKeySourceOptions = {},
): CachedKeySource {
  return new CachedKeySource(secretsManagerFetcher(client, secretId), opts);
}

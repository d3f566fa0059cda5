/**
 * Where a cluster service's envelope keys come from. In a deployment: the signing-key secret in Secrets
 * Manager (replicated to every region, read in the pod's region through its IAM role), cached 60 s and
 * refreshed on a verification miss, so a rotation reaches running pods without a restart. Locally and in
 * tests: SIGNING_KEYS / SIGNING_KEY.
 */
import { awsClientConfig } from '../../contracts/runtime/aws-clients.js';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { EnvReader } from '../../contracts/env/reader.js';
import { secretsManagerKeySource } from '../../contracts/runtime/secrets-key-source.js';
import { keySourceFromEnv, type KeySource } from '../../contracts/envelope/signing-keys.js';

export function serviceKeySource(
  env: NodeJS.ProcessEnv = process.env,
  client?: Pick<SecretsManagerClient, 'send'>,
): KeySource {
  const read = new EnvReader(env);
  const secretId = read.optional('SIGNING_KEY_SECRET_ARN');
  if (!secretId) return keySourceFromEnv(env);
  const region = read.optional('AWS_REGION');
  const secrets =
    client ??
    new SecretsManagerClient(awsClientConfig({ component: 'envelope-keys', ...(region ? { region } : {}) }));
  return secretsManagerKeySource(secrets, secretId);
}

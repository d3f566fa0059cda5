/**
 * TLS material for a service's own HTTPS listener. In a deployment it comes from Secrets Manager
 * (TLS_SECRET_ARN): the JSON `{"certificatePem","privateKeyPem","caCertificatePem"}` that the regional
 * stack's InternalCertificate issues from the deployment's internal CA. Locally and in tests it may come
 * from files (TLS_CERT_FILE/TLS_KEY_FILE). The key is read into memory only: no file on the
 * pod's read-only root file system, no Kubernetes Secret, and never a log line.
 */
import { awsClientConfig } from '../../contracts/runtime/aws-clients.js';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { readFileSync } from 'node:fs';
import { EnvReader } from '../../contracts/env/reader.js';

export interface TlsMaterial {
  /** PEM certificate chain the listener presents. */
  readonly cert: string | Buffer;
  /** PEM private key of `cert`. */
  readonly key: string | Buffer;
  /** PEM of the CA that issued `cert`, when known: what peers of this service trust. */
  readonly ca?: string;
  /**
   * Reads the source again, when it can change under a running pod (the secret, which the regional
   * stack's daily renewal rewrites): the listener swaps in what it returns (listen.ts).
   */
  readonly reload?: () => Promise<TlsMaterial>;
}

/** Secret value written by InternalCertificate (lib/constructs/internal-ca.ts). */
interface KeyPairSecret {
  certificatePem: string;
  privateKeyPem: string;
  caCertificatePem: string;
}

const FIELDS = ['certificatePem', 'privateKeyPem', 'caCertificatePem'] as const;

/**
 * Reads and checks the key-pair secret. Errors name the secret and the problem, never a value: the
 * message ends up in the pod's startup log.
 */
export async function tlsFromSecret(
  secretId: string,
  client: Pick<SecretsManagerClient, 'send'>,
): Promise<TlsMaterial> {
  let secretString: string | undefined;
  try {
    secretString = (await client.send(new GetSecretValueCommand({ SecretId: secretId }))).SecretString;
  } catch (error) {
    const name = error instanceof Error ? error.name : 'Error';
    throw new Error(`TLS_SECRET_ARN: cannot read secret ${secretId} (${name})`, { cause: error });
  }
  if (secretString === undefined) {
    throw new Error(`TLS_SECRET_ARN: secret ${secretId} has no string value`);
  }
  const value = parseKeyPair(secretId, secretString);
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(value.certificatePem);
  } catch {
    throw new Error(`TLS_SECRET_ARN: certificatePem of secret ${secretId} is not a PEM certificate`);
  }
  let keyMatches: boolean;
  try {
    keyMatches = cert.checkPrivateKey(createPrivateKey(value.privateKeyPem));
  } catch {
    throw new Error(`TLS_SECRET_ARN: privateKeyPem of secret ${secretId} is not a PEM private key`);
  }
  // A mismatched pair would only fail at the first handshake; fail at startup with a clear reason instead.
  if (!keyMatches) {
    throw new Error(`TLS_SECRET_ARN: privateKeyPem of secret ${secretId} does not match certificatePem`);
  }
  return {
    cert: value.certificatePem,
    key: value.privateKeyPem,
    ca: value.caCertificatePem,
    reload: () => tlsFromSecret(secretId, client),
  };
}

function parseKeyPair(secretId: string, secretString: string): KeyPairSecret {
  let parsed: unknown;
  try {
    parsed = JSON.parse(secretString);
  } catch {
    throw new Error(`TLS_SECRET_ARN: secret ${secretId} is not JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`TLS_SECRET_ARN: secret ${secretId} is not a JSON object`);
  }
  const record = parsed as Record<string, unknown>;
  const missing = FIELDS.filter((field) => typeof record[field] !== 'string' || record[field] === '');
  if (missing.length > 0) {
    throw new Error(`TLS_SECRET_ARN: secret ${secretId} lacks ${missing.join(', ')}`);
  }
  return record as unknown as KeyPairSecret;
}

/**
 * The listener's TLS material from the environment: TLS_SECRET_ARN (deployments) or TLS_CERT_FILE +
 * TLS_KEY_FILE (local runs); undefined when neither is set (plain HTTP, e.g. behind the local router).
 */
export async function loadTls(
  env: NodeJS.ProcessEnv = process.env,
  client?: Pick<SecretsManagerClient, 'send'>,
): Promise<TlsMaterial | undefined> {
  const read = new EnvReader(env);
  const secretId = read.optional('TLS_SECRET_ARN');
  const certFile = read.optional('TLS_CERT_FILE');
  const keyFile = read.optional('TLS_KEY_FILE');
  const region = read.optional('AWS_REGION');
  if (secretId) {
    if (certFile || keyFile) {
      throw new Error('TLS_SECRET_ARN and TLS_CERT_FILE/TLS_KEY_FILE are exclusive: set one source');
    }
    const secrets =
      client ??
      new SecretsManagerClient(awsClientConfig({ component: 'tls-secret', ...(region ? { region } : {}) }));
    return tlsFromSecret(secretId, secrets);
  }
  if (!certFile && !keyFile) return undefined;
  if (!certFile || !keyFile) throw new Error('TLS_CERT_FILE and TLS_KEY_FILE must be set together');
  return { cert: readFileSync(certFile), key: readFileSync(keyFile) };
}

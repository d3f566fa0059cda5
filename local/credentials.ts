/**
 * The local platform's IAM: random credentials per run for the developer (printed at startup, used with
 * `curl --aws-sigv4`) and for the aggregator's role (it signs its calls to the regional APIs with its own
 * identity, as in a deployment). The emulator and the AWS stand-ins verify SigV4 against this store.
 * With a data directory the pair is kept (local/data-dir.ts) and passed back as `saved`.
 */
import { randomBytes } from 'node:crypto';
import type { Partition } from '../contracts/partition.js';
import type { CredentialStore, LocalCredential } from './sigv4-verifier.js';

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function randomId(prefix: string, length: number): string {
  const bytes = randomBytes(length);
  let out = prefix;
  for (const b of bytes) out += ID_ALPHABET[b % ID_ALPHABET.length] ?? 'A';
  return out;
}

function randomSecret(): string {
  // 40 characters of the same alphabet AWS secret keys use.
  return randomBytes(30).toString('base64').replace(/[+]/g, 'A').slice(0, 40);
}

export interface LocalCredentials extends CredentialStore {
  /** The developer: `arn:<partition>:iam::<account>:user/local-developer`, no session token. */
  readonly developer: LocalCredential;
  /** The aggregator Lambda's role session (temporary credentials: with a session token). */
  readonly aggregator: LocalCredential;
}

export function createLocalCredentials(opts: {
  partition: Partition;
  accountId: string;
  aggregatorRoleName: string;
  /** Fixed developer keys (LOCAL_ACCESS_KEY_ID / LOCAL_SECRET_ACCESS_KEY); random otherwise. */
  developer?: { accessKeyId: string; secretAccessKey: string };
  /** The identities of an earlier run (kept in the data directory): reused instead of random ones. */
  saved?: { developer: LocalCredential; aggregator: LocalCredential };
}): LocalCredentials {
  if (opts.saved) {
    const { developer: kept, aggregator } = opts.saved;
    const developer = opts.developer ? { ...kept, ...opts.developer } : kept;
    const byKey = new Map([developer, aggregator].map((c) => [c.accessKeyId, c]));
    return { developer, aggregator, find: (accessKeyId) => byKey.get(accessKeyId) };
  }
  const developerUserId = randomId('AIDA', 17);
  const developer: LocalCredential = {
    accessKeyId: opts.developer?.accessKeyId ?? randomId('AKIA', 16),
    secretAccessKey: opts.developer?.secretAccessKey ?? randomSecret(),
    principal: {
      arn: `arn:${opts.partition}:iam::${opts.accountId}:user/local-developer`,
      accountId: opts.accountId,
      userId: developerUserId,
    },
  };
  const roleId = randomId('AROA', 17);
  const aggregator: LocalCredential = {
    accessKeyId: randomId('ASIA', 16),
    secretAccessKey: randomSecret(),
    sessionToken: randomBytes(48).toString('base64'),
    principal: {
      arn: `arn:${opts.partition}:sts::${opts.accountId}:assumed-role/${opts.aggregatorRoleName}/local`,
      accountId: opts.accountId,
      userId: `${roleId}:local`,
    },
  };
  const byKey = new Map([developer, aggregator].map((c) => [c.accessKeyId, c]));
  return { developer, aggregator, find: (accessKeyId) => byKey.get(accessKeyId) };
}

/** A store of fixed credentials (the AWS stand-ins accept the SDK clients' static loopback keys). */
export function staticCredentialStore(credentials: readonly LocalCredential[]): CredentialStore {
  const byKey = new Map(credentials.map((c) => [c.accessKeyId, c]));
  return { find: (accessKeyId) => byKey.get(accessKeyId) };
}

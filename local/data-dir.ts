/**
 * The local platform's data directory (`npm start -- --data-dir DIR`, GCO_LOCAL_DATA_DIR): where each
 * stand-in keeps its state so a restart — even after SIGKILL — finds it again. Without one, everything
 * is in memory and lost when the process stops.
 *
 *   DIR/identity.json              credentials (developer, aggregator role) and the envelope signing key (0600)
 *   DIR/global/dynamodb/           central tables (dynalite's LevelDB)
 *   DIR/<region>/dynamodb/         the region's tables
 *   DIR/<region>/s3/               the region's buckets (s3rver's directory)
 *   DIR/<region>/kubernetes.jsonl  the region's Kubernetes objects (kube-api-simulator/persistence.ts)
 *   DIR/analytics/dynamodb/        analytics applications, keys, idempotency records
 *   DIR/analytics/kinesis/         the events stream (kinesalite's LevelDB)
 *
 * LevelDB guards a directory with an fcntl lock on its LOCK file; the kernel drops the lock with the
 * process, so the file a SIGKILL leaves behind never blocks the next start
 * (https://github.com/google/leveldb/blob/main/util/env_posix.cc, LockFile).
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LocalCredential } from './sigv4-verifier.js';

export interface LocalIdentity {
  signingKey: string;
  developer: LocalCredential;
  aggregator: LocalCredential;
}

const IDENTITY_FILE = 'identity.json';

/** The directory of one piece (`global/dynamodb`, a region, `analytics`), created on first use. */
export function dataPath(dataDir: string, ...parts: string[]): string {
  const path = join(dataDir, ...parts);
  mkdirSync(path, { recursive: true, mode: 0o700 });
  return path;
}

function credentialOf(value: unknown, what: string): LocalCredential {
  const c = (value ?? {}) as Partial<LocalCredential>;
  const p = (c.principal ?? {}) as Partial<LocalCredential['principal']>;
  const text = (v: unknown) => typeof v === 'string' && v !== '';
  if (![c.accessKeyId, c.secretAccessKey, p.arn, p.accountId, p.userId].every(text))
    throw new Error(`${IDENTITY_FILE}: ${what} is incomplete`);
  return c as LocalCredential;
}

/** The identity an earlier run kept in `dataDir`, or undefined when there is none yet. */
export function readIdentity(dataDir: string): LocalIdentity | undefined {
  const file = join(dataDir, IDENTITY_FILE);
  if (!existsSync(file)) return undefined;
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<LocalIdentity>;
  if (typeof parsed.signingKey !== 'string' || parsed.signingKey === '')
    throw new Error(`${file}: signingKey is missing`);
  return {
    signingKey: parsed.signingKey,
    developer: credentialOf(parsed.developer, 'developer'),
    aggregator: credentialOf(parsed.aggregator, 'aggregator'),
  };
}

/** Keeps the identity (mode 0600; written to a temporary file and renamed, so never half written). */
export function writeIdentity(dataDir: string, identity: LocalIdentity): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, IDENTITY_FILE);
  const temporary = `${file}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(identity, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
}

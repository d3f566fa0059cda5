/**
 * The local platform's data directory (`npm start -- --data-dir DIR`, GCO_LOCAL_DATA_DIR): where each
 * stand-in keeps its state so a restart — even after SIGKILL — finds it again. Without one, everything
 * is in memory and lost when the process stops.
 *
 *   DIR/platform.pid               the pid of the platform using DIR (claimDataDir)
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
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import type { LocalCredential } from './sigv4-verifier.js';

export interface LocalIdentity {
  signingKey: string;
  developer: LocalCredential;
  aggregator: LocalCredential;
}

const IDENTITY_FILE = 'identity.json';
const PID_FILE = 'platform.pid';

/** Whether a process with this pid exists (EPERM: it exists, owned by someone else). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Makes this process the data directory's only user: two platforms on one directory would interleave
 * their writes (and dynalite ends its process on a LevelDB directory another process holds). The pid
 * file is created exclusively; one naming a process that no longer runs (left by SIGKILL) is taken
 * over. Returns the release, which removes the file.
 */
export function claimDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, PID_FILE);
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return () => {
        if (existsSync(file) && Number(readFileSync(file, 'utf8')) === process.pid) rmSync(file);
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
      const owner = Number(readFileSync(file, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && alive(owner))
        throw new Error(`${dataDir} is in use by the local platform with pid ${owner}`, { cause: error });
      rmSync(file, { force: true });
    }
  }
}

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

/**
 * A short-lived on-disk cache of stack outputs, so a shell session of `gco` commands does not call
 * CloudFormation every time. Keyed by access key id, region and stack (another account or role never
 * sees the entry); `GCO_DISCOVERY_TTL_SECONDS=0` turns it off. One JSON file, mode 600, written atomically.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';

const DEFAULT_DISCOVERY_TTL_SECONDS = 300;

interface Entry {
  outputs: Record<string, string>;
  expiresAt: number;
}

export interface DiscoveryCache {
  get(key: DiscoveryKey): Promise<Record<string, string> | undefined>;
  put(key: DiscoveryKey, outputs: Record<string, string>): Promise<void>;
}

interface DiscoveryKey {
  accessKeyId: string;
  region: string;
  stackName: string;
}

/** `$GCO_CACHE_DIR`, else `$XDG_CACHE_HOME/gco`, else `~/.cache/gco`. */
function cacheDirectory(env: Readonly<Record<string, string | undefined>>): string {
  if (env.GCO_CACHE_DIR) return env.GCO_CACHE_DIR;
  return join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'gco');
}

const keyOf = (key: DiscoveryKey) =>
  createHash('sha256').update(`${key.accessKeyId}\n${key.region}\n${key.stackName}`).digest('hex');

export function fileDiscoveryCache(
  env: Readonly<Record<string, string | undefined>>,
  now: () => number = Date.now,
): DiscoveryCache {
  const ttlSeconds = Number(env.GCO_DISCOVERY_TTL_SECONDS ?? DEFAULT_DISCOVERY_TTL_SECONDS);
  const dir = cacheDirectory(env);
  const file = join(dir, 'discovery.json');
  const enabled = Number.isFinite(ttlSeconds) && ttlSeconds > 0;

  const load = async (): Promise<Record<string, Entry>> => {
    try {
      const value: unknown = JSON.parse(await readFile(file, 'utf8'));
      return typeof value === 'object' && value !== null ? (value as Record<string, Entry>) : {};
    } catch {
      return {};
    }
  };

  return {
    async get(key) {
      if (!enabled) return undefined;
      const entry = (await load())[keyOf(key)];
      return entry !== undefined && entry.expiresAt > now() ? entry.outputs : undefined;
    },
    async put(key, outputs) {
      if (!enabled) return;
      try {
        const entries = Object.fromEntries(
          Object.entries(await load()).filter(([, e]) => e.expiresAt > now()),
        );
        entries[keyOf(key)] = { outputs, expiresAt: now() + ttlSeconds * 1000 };
        await mkdir(dir, { recursive: true, mode: 0o700 });
        const temp = `${file}.${process.pid}.tmp`;
        await writeFile(temp, JSON.stringify(entries), { mode: 0o600 });
        await rename(temp, file);
      } catch {
        // A cache that cannot be written only costs the next command a DescribeStacks call.
      }
    },
  };
}

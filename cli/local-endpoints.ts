/**
 * `--local`: the endpoints file `npm start` writes (`.local/endpoints.json`, docs/local-platform.md).
 * Found from the working directory upwards (or `$GCO_LOCAL_DIR`, or `--endpoints-file`), and refused
 * when the platform that wrote it is no longer running.
 */
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { DiscoveryError } from './errors.js';

/** The part of the endpoints file the CLI uses. */
export interface LocalEndpoints {
  readonly file: string;
  readonly apis: { global: string; regional: Record<string, string>; analytics?: string };
  readonly credentials: { accessKeyId: string; secretAccessKey: string };
  readonly globalRegion: string;
  readonly pid?: number;
}

const LOCAL_DIR = '.local';
const ENDPOINTS_FILE = 'endpoints.json';
const START_HINT =
  'Start the local platform with `npm start` in the repository (it writes .local/endpoints.json).';

/** The endpoints file to read: explicit, `$GCO_LOCAL_DIR`, or the nearest `.local/` above `cwd`. */
export function findEndpointsFile(
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
  explicit?: string,
): string {
  if (explicit !== undefined) return isAbsolute(explicit) ? explicit : resolve(cwd, explicit);
  if (env.GCO_LOCAL_DIR) return resolve(cwd, env.GCO_LOCAL_DIR, ENDPOINTS_FILE);
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const candidate = join(dir, LOCAL_DIR, ENDPOINTS_FILE);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) return join(resolve(cwd), LOCAL_DIR, ENDPOINTS_FILE);
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === 'string' && v !== '';

/** Parses an endpoints file's text; throws DiscoveryError naming what is missing. */
export function parseLocalEndpoints(file: string, text: string): LocalEndpoints {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new DiscoveryError(`${file} is not valid JSON`, START_HINT);
  }
  const problems: string[] = [];
  const apis = isRecord(value) && isRecord(value.apis) ? value.apis : undefined;
  const credentials = isRecord(value) && isRecord(value.credentials) ? value.credentials : undefined;
  if (!isString(apis?.global)) problems.push('apis.global');
  if (!isRecord(apis?.regional) || !Object.values(apis.regional).every(isString))
    problems.push('apis.regional');
  if (apis?.analytics !== undefined && !isString(apis.analytics)) problems.push('apis.analytics');
  if (!isString(credentials?.accessKeyId) || !isString(credentials.secretAccessKey))
    problems.push('credentials');
  if (!isRecord(value) || !isString(value.globalRegion)) problems.push('globalRegion');
  if (problems.length > 0 || !isRecord(value) || apis === undefined || credentials === undefined) {
    throw new DiscoveryError(`${file} lacks ${problems.join(', ')}`, START_HINT);
  }
  return {
    file,
    apis: {
      global: apis.global as string,
      regional: apis.regional as Record<string, string>,
      ...(isString(apis.analytics) ? { analytics: apis.analytics } : {}),
    },
    credentials: {
      accessKeyId: credentials.accessKeyId as string,
      secretAccessKey: credentials.secretAccessKey as string,
    },
    globalRegion: value.globalRegion as string,
    ...(typeof value.pid === 'number' ? { pid: value.pid } : {}),
  };
}

/** True when a process with this id exists (a signal-0 probe; EPERM means it exists as another user). */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function readLocalEndpoints(file: string): Promise<LocalEndpoints> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new DiscoveryError(`No local platform: ${file} does not exist`, START_HINT);
  }
  const endpoints = parseLocalEndpoints(file, text);
  if (endpoints.pid !== undefined && !processExists(endpoints.pid)) {
    throw new DiscoveryError(
      `The local platform that wrote ${file} (pid ${endpoints.pid}) is not running`,
      START_HINT,
    );
  }
  return endpoints;
}

/**
 * `npm start` as the README runs it, in a child process with its own output folder (GCO_LOCAL_DIR):
 * waits for the ready banner and endpoints.json, and observes the process tree by pid (Linux /proc).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LocalEndpoints } from '../../../local/platform.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));

export interface NpmStart {
  readonly npm: ChildProcess;
  /** Everything printed so far (stdout and stderr). */
  output(): string;
  /** npm's exit code, or the signal that ended it. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Spawns `npm start [-- args]` from the repository root with `env` added to this process's. */
export function npmStart(
  outDir: string,
  args: readonly string[] = [],
  env: NodeJS.ProcessEnv = {},
): NpmStart {
  const npm = spawn('npm', ['start', ...(args.length > 0 ? ['--', ...args] : [])], {
    cwd: root,
    env: { ...process.env, GCO_LOCAL_DIR: outDir, SIGNING_KEY: '', LOCAL_REGIONS: '', ...env },
  });
  let out = '';
  npm.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  npm.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    npm.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { npm, output: () => out, exited };
}

/** Resolves with endpoints.json once the banner is complete; rejects if npm exits first. */
export async function whenReady(started: NpmStart, outDir: string): Promise<LocalEndpoints> {
  const file = join(outDir, 'endpoints.json');
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (started.output().includes('kubectl:') && existsSync(file)) {
        clearInterval(timer);
        resolve();
      }
    }, 50);
    void started.exited.then(({ code, signal }) => {
      clearInterval(timer);
      reject(new Error(`npm start exited (${code ?? signal}) before ready:\n${started.output()}`));
    });
  });
  return JSON.parse(readFileSync(file, 'utf8')) as LocalEndpoints;
}

/** The parent pid of a process (field 4 of /proc/<pid>/stat; the name in field 2 may hold spaces). */
export function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** `pid` and every process below it. */
export function processTree(pid: number): number[] {
  const children = (p: number): number[] => {
    try {
      return readdirSync(`/proc/${p}/task`).flatMap((tid) =>
        readFileSync(`/proc/${p}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
      );
    } catch {
      return []; // gone meanwhile
    }
  };
  const out = [pid];
  for (let i = 0; i < out.length; i++) out.push(...children(out[i] ?? 0));
  return out;
}

/** Whether a process still runs (a zombie waiting for its reaper has stopped running). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Polls until none of `pids` runs; resolves with those still running at `timeoutMs`. */
export async function waitGone(pids: readonly number[], timeoutMs: number): Promise<number[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const left = pids.filter(running);
    if (left.length === 0 || Date.now() > until) return left;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Every loopback port endpoints.json names. */
export function portsOf(endpoints: LocalEndpoints): number[] {
  const ports = new Set<number>([endpoints.edge.acceleratorPort]);
  for (const match of JSON.stringify(endpoints).matchAll(/127\.0\.0\.1:(\d+)/g)) ports.add(Number(match[1]));
  return [...ports];
}

/** The ports among `ports` that still accept a TCP connection on 127.0.0.1. */
export async function listening(ports: readonly number[]): Promise<number[]> {
  const open = await Promise.all(
    ports.map(
      (port) =>
        new Promise<boolean>((resolve) => {
          const socket = connect({ host: '127.0.0.1', port });
          socket.once('connect', () => {
            socket.destroy();
            resolve(true);
          });
          socket.once('error', () => resolve(false));
        }),
    ),
  );
  return ports.filter((_, i) => open[i]);
}

/** Kills whatever of `pids` still runs (a failed test must not leave a platform behind). */
export function killAll(pids: readonly number[]): void {
  for (const pid of pids.filter(running)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}

/**
 * What a `gco` run reads and writes: its streams, environment and working directory. `main()` takes
 * them as arguments so tests can run the program in-process; the executable passes the process's own.
 */
import type { Readable } from 'node:stream';

export interface OutputStream {
  write(chunk: string | Uint8Array): boolean;
  /** True on a terminal (tables, progress bars); undefined or false for pipes and files. */
  readonly isTTY?: boolean;
  readonly columns?: number;
}

export interface CliIo {
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
  /** `isTTY` when a person can answer a question on it (confirm.ts). */
  readonly stdin: Readable & { readonly isTTY?: boolean };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
  };
}

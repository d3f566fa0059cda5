/**
 * Test helper: requests signed and sent by the independent Python implementation of envelope v1
 * (test/fixtures/envelope_client.py). Asynchronous on purpose: the service under test runs in this
 * process and must keep serving while Python waits for its answer.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CLIENT = fileURLToPath(new URL('../fixtures/envelope_client.py', import.meta.url));

export interface PythonReply {
  status: number;
  body: string;
}

/** `request`: base, key, method (default GET), target and the client's options; one reply per request sent. */
export function pythonSignedRequest(request: Record<string, unknown>): Promise<PythonReply[]> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', [CLIENT]);
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(out) as PythonReply[])
        : reject(new Error(`envelope_client.py exited ${code}: ${err}`)),
    );
    child.stdin.end(JSON.stringify({ method: 'GET', ...request }));
  });
}

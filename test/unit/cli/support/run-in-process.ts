/**
 * Runs `gco` in-process (cli/main.ts) with captured streams, against a loopback API that records every
 * request it receives (after verifying its SigV4 signature with the local verifier) and answers 200 `{}`.
 * The endpoints file points every API at it, so the tests see exactly what a command line puts on the wire.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { main } from '../../../../cli/main.js';
import type { CliIo, OutputStream } from '../../../../cli/io.js';
import { staticCredentialStore } from '../../../../local/credentials.js';
import { verifySigV4 } from '../../../../local/sigv4-verifier.js';
import { suiteTempDir } from '../../../support/suite-temp-dir.js';

const CREDENTIALS = { accessKeyId: 'AKIAUNITTESTCLI00001', secretAccessKey: 'unit-test-secret' };

interface RecordedRequest {
  method: string;
  /** Path and query as received. */
  target: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Region the SigV4 signature is scoped to; undefined for unsigned requests. */
  signedFor?: string;
}

export interface RecordingApi {
  readonly url: string;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

const store = staticCredentialStore([
  {
    ...CREDENTIALS,
    principal: { arn: 'arn:aws:iam::000000000000:user/unit', accountId: '000000000000', userId: 'AIDAUNIT' },
  },
]);

export async function startRecordingApi(): Promise<RecordingApi> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      void verifySigV4(
        { method: req.method ?? '', target: req.url ?? '', rawHeaders: req.rawHeaders, body },
        { service: 'execute-api', credentials: store },
      ).then((verdict) => {
        requests.push({
          method: req.method ?? '',
          target: req.url ?? '',
          headers: req.headers,
          body: body.toString('utf8'),
          ...(verdict.ok ? { signedFor: verdict.region } : {}),
        });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An endpoints file (as `npm start` writes it) whose APIs are all the recording API. */
export function endpointsFileFor(api: RecordingApi): string {
  const dir = suiteTempDir('gco-cli-unit-');
  const file = join(dir, 'endpoints.json');
  writeFileSync(
    file,
    JSON.stringify({
      apis: {
        global: `${api.url}/prod`,
        regional: { 'us-east-1': `${api.url}/regional/prod`, 'us-west-2': `${api.url}/west/prod` },
        analytics: `${api.url}/live`,
      },
      credentials: CREDENTIALS,
      globalRegion: 'us-east-2',
    }),
  );
  return file;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

function capture(): OutputStream & { text: string } {
  const stream = {
    text: '',
    isTTY: false,
    write(chunk: string | Uint8Array) {
      stream.text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      return true;
    },
  };
  return stream;
}

/** Runs gco with these arguments; `cwd` is where relative files are read from. */
export async function runGco(
  args: readonly string[],
  opts: { cwd?: string; stdin?: string; env?: Record<string, string> } = {},
): Promise<RunResult> {
  const stdout = capture();
  const stderr = capture();
  const io: CliIo = {
    stdout,
    stderr,
    stdin: Readable.from(opts.stdin === undefined ? [] : [opts.stdin]),
    env: { HOME: tmpdir(), GCO_DISCOVERY_TTL_SECONDS: '0', ...opts.env },
    cwd: opts.cwd ?? tmpdir(),
  };
  const code = await main(args, io);
  return { code, stdout: stdout.text, stderr: stderr.text };
}

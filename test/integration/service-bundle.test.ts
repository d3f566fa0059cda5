import { jsonOf } from '../support/json.js';
/**
 * The container path without a Docker engine: bundle each service exactly as its Dockerfile does, run
 * the bundle as a separate Node process against the Kubernetes API simulator, call it, and stop it with
 * SIGTERM (graceful shutdown must exit 0).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleService, CLUSTER_SERVICES } from '../../cluster/build.js';
import { signEnvelope } from '../../lambda/shared/envelope.js';
import { startKubeApiSimulator, type KubeApiSimulator } from '../../lib/local/kube-api-simulator/index.js';

const KEY = 'bundle-test-key-0123456789abcdef0123';

function waitForListening(child: ChildProcessWithoutNullStreams): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited with ${code} before listening:\n${out}`)));
  });
}

describe.each(CLUSTER_SERVICES)('%s bundle', (service) => {
  let dir: string;
  let sim: KubeApiSimulator;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), `bundle-${service}-`));
    sim = await startKubeApiSimulator();
    writeFileSync(join(dir, 'kubeconfig'), sim.kubeConfigYaml());
    const result = await bundleService(service, dir);
    expect(result.errors).toEqual([]);
  }, 60_000);

  afterAll(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('starts as its own process, serves, and shuts down gracefully on SIGTERM', async () => {
    const child = spawn(process.execPath, ['--enable-source-maps', join(dir, `${service}.mjs`)], {
      env: {
        PATH: process.env.PATH,
        HOST: '127.0.0.1',
        PORT: '0',
        SIGNING_KEY: KEY,
        KUBECONFIG: join(dir, 'kubeconfig'),
        REGION: 'us-east-1',
      },
    });
    try {
      const base = await waitForListening(child);
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      const unsigned = await fetch(`${base}/`);
      expect([unsigned.status, await jsonOf(unsigned)]).toEqual([403, { detail: 'Forbidden' }]);
      const signed = await fetch(`${base}/`, {
        headers: signEnvelope({ key: KEY, method: 'GET', target: '/' }),
      });
      expect(signed.status).toBe(200);
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  test('a configuration error is one clear line and exit code 1', async () => {
    const child = spawn(process.execPath, [join(dir, `${service}.mjs`)], {
      env: { PATH: process.env.PATH, PORT: '0', KUBECONFIG: join(dir, 'kubeconfig') },
    });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    expect(code).toBe(1);
    const line = JSON.parse(err.trim()) as { level: string; message: string };
    expect(line.level).toBe('fatal');
    expect(line.message).toMatch(/SIGNING_KEY/);
  });
});

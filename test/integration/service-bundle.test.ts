/**
 * The container path without a Docker engine: bundle each service exactly as its Dockerfile does, run
 * the bundle as a separate Node process against local stand-ins (Kubernetes API simulator, dynalite,
 * s3rver), call it, and stop it with SIGTERM (graceful shutdown must exit 0).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleService } from '../../cluster/build.js';
import { CLUSTER_SERVICES, type ClusterServiceName } from '../../contracts/routing.js';
import { signEnvelope } from '../../contracts/envelope/envelope.js';
import { startLocalDynamo, type LocalDynamo } from '../../local/dynamodb.js';
import { startKubeApiSimulator, type KubeApiSimulator } from '../../local/kube-api-simulator/index.js';
import { S3RVER_CREDENTIALS, startLocalS3, type LocalS3 } from '../../local/s3.js';
import { createLocalCa } from '../../local/tls.js';

const KEY = 'bundle-test-key-0123456789abcdef0123';

interface Stack {
  dir: string;
  sim: KubeApiSimulator;
  dynamo: LocalDynamo;
  s3: LocalS3;
}

/** What each service needs in its environment, and one authenticated call that proves it serves. */
const SERVICES: Record<
  ClusterServiceName,
  { env: (s: Stack) => Record<string, string>; probe: { path: string; signed: boolean } }
> = {
  'health-monitor': {
    env: (s) => ({ SIGNING_KEY: KEY, KUBECONFIG: join(s.dir, 'kubeconfig') }),
    probe: { path: '/', signed: true },
  },
  'manifest-processor': {
    env: (s) => ({
      ...s.dynamo.env,
      SIGNING_KEY: KEY,
      KUBECONFIG: join(s.dir, 'kubeconfig'),
      GLOBAL_REGION: 'us-east-2',
      AWS_ENDPOINT_URL_DYNAMODB: s.dynamo.endpoint,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      COST_MONITOR_CA_FILE: join(s.dir, 'internal-ca.pem'),
    }),
    probe: { path: '/api/v1/jobs', signed: true },
  },
  'inference-proxy': {
    env: (s) => ({
      ...s.dynamo.env,
      SIGNING_KEY: KEY,
      INTERNAL_CA_FILE: join(s.dir, 'internal-ca.pem'),
      DYNAMODB_ENDPOINT: s.dynamo.endpoint,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    }),
    probe: { path: '/', signed: true },
  },
  'cost-monitor': {
    // No envelope by design (docs/cost.md): a NetworkPolicy confines it to manifest-processor.
    env: (s) => ({
      ...s.dynamo.env,
      COST_REPORTS_BUCKET: 'cost-reports',
      AWS_ENDPOINT_URL_DYNAMODB: s.dynamo.endpoint,
      AWS_ENDPOINT_URL_S3: s.s3.endpoint,
      AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
      AWS_S3_FORCE_PATH_STYLE: 'true',
      OPENCOST_URL: 'http://127.0.0.1:9',
    }),
    probe: { path: '/internal/reports', signed: false },
  },
};

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

describe('service bundles', () => {
  const stack = {} as Stack;

  beforeAll(async () => {
    stack.dir = mkdtempSync(join(tmpdir(), 'bundles-'));
    stack.sim = await startKubeApiSimulator();
    stack.dynamo = await startLocalDynamo();
    stack.s3 = await startLocalS3({ buckets: ['cost-reports'] });
    writeFileSync(join(stack.dir, 'kubeconfig'), stack.sim.kubeConfigYaml());
    writeFileSync(join(stack.dir, 'internal-ca.pem'), createLocalCa().cert);
  });

  afterAll(async () => {
    await stack.sim.close();
    await stack.dynamo.close();
    await stack.s3.close();
    rmSync(stack.dir, { recursive: true, force: true });
  });

  describe.each(CLUSTER_SERVICES)('%s', (service) => {
    beforeAll(async () => {
      const result = await bundleService(service, join(stack.dir, service));
      expect(result.errors).toEqual([]);
    }, 60_000);

    const bundle = () => join(stack.dir, service, `${service}.mjs`);

    test('starts as its own process, serves, and shuts down gracefully on SIGTERM', async () => {
      const { env, probe } = SERVICES[service];
      const child = spawn(process.execPath, ['--enable-source-maps', bundle()], {
        env: {
          PATH: process.env.PATH,
          HOST: '127.0.0.1',
          PORT: '0',
          REGION: 'us-east-1',
          AWS_REGION: 'us-east-1',
          ...env(stack),
        },
      });
      try {
        const base = await waitForListening(child);
        expect((await fetch(`${base}/healthz`)).status).toBe(200);
        if (probe.signed) {
          const unsigned = await fetch(`${base}${probe.path}`);
          expect(unsigned.status).toBe(403);
        }
        const headers = probe.signed ? signEnvelope({ key: KEY, method: 'GET', target: probe.path }) : {};
        expect((await fetch(`${base}${probe.path}`, { headers })).status).toBe(200);
        const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
        child.kill('SIGTERM');
        expect(await exited).toBe(0);
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    });

    test('a configuration error is one clear line and exit code 1', async () => {
      const child = spawn(process.execPath, [bundle()], { env: { PATH: process.env.PATH, PORT: '0' } });
      let err = '';
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
      expect(code).toBe(1);
      const line = JSON.parse(err.trim()) as { level: string; message: string };
      expect(line).toMatchObject({ level: 'fatal', message: expect.stringMatching(/^startup failed: /) });
    });
  });
});

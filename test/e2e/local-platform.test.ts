import { jsonOf } from '../support/json.js';
/**
 * `npm start` as a user runs it: a child process, found through .local/endpoints.json, stopped with Ctrl-C.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { signEnvelope } from '../../lambda/shared/envelope.js';
import type { LocalEndpoints } from '../../lib/local/platform.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

test('npm start brings the platform up, publishes endpoints.json, and stops cleanly on SIGINT', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gco-local-'));
  const child = spawn(join(root, 'node_modules/.bin/tsx'), ['bin/local.ts'], {
    cwd: root,
    env: { ...process.env, GCO_LOCAL_DIR: dir, SIGNING_KEY: '' },
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        if (/ready in [\d.]+ s/.test(out)) {
          clearInterval(timer);
          resolve();
        }
      }, 20);
      child.once('exit', (code) => {
        clearInterval(timer);
        reject(new Error(`npm start exited with ${code}:\n${out}`));
      });
    });

    const endpoints = JSON.parse(readFileSync(join(dir, 'endpoints.json'), 'utf8')) as LocalEndpoints;
    expect(Object.keys(endpoints.services).sort()).toEqual([
      'cost-monitor',
      'health-monitor',
      'inference-proxy',
      'manifest-processor',
    ]);
    expect(endpoints.signingKey).toMatch(/^[0-9a-f]{64}$/);
    expect(out).toContain(endpoints.signingKey);
    expect(out).toContain(endpoints.services['health-monitor']);

    const hm = endpoints.services['health-monitor'] ?? '';
    expect((await fetch(`${hm}/api/v1/health`)).status).toBe(200);
    const metrics = await fetch(`${hm}/api/v1/metrics`, {
      headers: signEnvelope({ key: endpoints.signingKey, method: 'GET', target: '/api/v1/metrics' }),
    });
    expect(metrics.status).toBe(200);
    // A job submitted to manifest-processor runs to completion on the simulator's clock.
    const mp = endpoints.services['manifest-processor'] ?? '';
    const signed = async (method: string, path: string, body?: unknown) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const res = await fetch(`${mp}${path}`, {
        method,
        headers: {
          ...signEnvelope({
            key: endpoints.signingKey,
            method,
            target: path,
            ...(payload ? { body: payload } : {}),
          }),
          ...(payload ? { 'content-type': 'application/json' } : {}),
        },
        ...(payload ? { body: payload } : {}),
      });
      return { status: res.status, body: await jsonOf(res) };
    };
    const job = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'e2e-hello' },
      spec: {
        template: {
          spec: {
            restartPolicy: 'Never',
            containers: [
              {
                name: 'main',
                image: 'public.ecr.aws/docker/library/busybox:1.36',
                command: ['echo', 'hi from e2e'],
              },
            ],
          },
        },
      },
    };
    const submitted = await signed('POST', '/api/v1/manifests', { manifests: [job], namespace: 'svc-jobs' });
    expect([submitted.status, submitted.body.resources[0].status]).toEqual([200, 'created']);
    expect((await signed('GET', '/api/v1/jobs')).body.jobs.map((j: { name: string }) => j.name)).toContain(
      'e2e-hello',
    );
    const deadline = Date.now() + 20_000;
    let state = '';
    while (state !== 'succeeded' && Date.now() < deadline) {
      state = (await signed('GET', '/api/v1/jobs/svc-jobs/e2e-hello')).body.status as string;
      if (state !== 'succeeded') await new Promise((r) => setTimeout(r, 100));
    }
    expect(state).toBe('succeeded');
    expect((await signed('GET', '/api/v1/jobs/svc-jobs/e2e-hello/pods')).body.pods[0].phase).toBe(
      'Succeeded',
    );
    expect((await signed('GET', '/api/v1/jobs/svc-jobs/e2e-hello/logs')).body.pods[0].logs).toContain(
      'hi from e2e',
    );

    // The central queue: submitted once (with an Idempotency-Key, replayed), dispatched by the worker.
    const queued = async () => {
      const payload = JSON.stringify({
        manifest: { ...job, metadata: { name: 'e2e-queued' } },
        target_region: endpoints.region,
        priority: 50,
      });
      const res = await fetch(`${mp}/api/v1/queue/jobs`, {
        method: 'POST',
        headers: {
          ...signEnvelope({
            key: endpoints.signingKey,
            method: 'POST',
            target: '/api/v1/queue/jobs',
            body: payload,
          }),
          'content-type': 'application/json',
          'idempotency-key': 'e2e-key-1',
        },
        body: payload,
      });
      return { status: res.status, body: await jsonOf(res) };
    };
    const first = await queued();
    const replay = await queued();
    expect(first.status).toBe(200);
    expect(replay.body.job_id).toBe(first.body.job_id);
    expect(replay.body.idempotent_replay).toBe(true);
    let queuedStatus = '';
    const queueDeadline = Date.now() + 30_000;
    while (queuedStatus !== 'succeeded' && Date.now() < queueDeadline) {
      queuedStatus = (await signed('GET', `/api/v1/queue/jobs/${first.body.job_id}`)).body.status as string;
      if (queuedStatus !== 'succeeded') await new Promise((r) => setTimeout(r, 200));
    }
    expect(queuedStatus).toBe('succeeded');

    // A job from a template, and a cost report through cost-monitor over verified TLS.
    const template = { name: 'e2e-template', manifest: { ...job, metadata: { name: '{{name}}' } } };
    expect((await signed('POST', '/api/v1/templates', template)).status).toBe(200);
    const fromTemplate = await signed('POST', '/api/v1/jobs/from-template/e2e-template', {
      name: 'e2e-from-template',
    });
    expect(fromTemplate.status).toBe(200);
    const status = (await signed('GET', '/api/v1/status')).body;
    expect(status.templates.names).toContain('e2e-template');
    expect(status.queue).toEqual({ region: endpoints.region, worker_enabled: true });
    const report = await signed('POST', '/api/v1/cost/reports', { window_hours: 1 });
    expect(report.status).toBe(200);
    expect((await signed('GET', '/api/v1/cost/status')).status).toBe(200);

    const nodes = await jsonOf(await fetch(`${endpoints.kubernetes}/api/v1/nodes`));
    expect(nodes.items.length).toBeGreaterThan(0);
    expect(readFileSync(join(dir, 'kubeconfig'), 'utf8')).toContain(endpoints.kubernetes);

    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(existsSync(join(dir, 'endpoints.json'))).toBe(false);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);

/**
 * `npm start -- --data-dir DIR` keeps the platform's state: an analytics application and its API key,
 * a webhook, a Job that ran and a job still waiting in the queue are all there after `kill -9` of the
 * platform and npm and a new start on the same directory (this time by GCO_LOCAL_DATA_DIR) — the queue
 * drains, and the credentials and signing key are the same. LevelDB's LOCK files left by the SIGKILL do
 * not block the restart.
 *
 * The queued job is held by price: the first run sees every spot price at 1.00 (LOCAL_SPOT_PRICE) above
 * the job's max_spot_price of 0.50, the second run the default 0.10, so it is dispatched only then (at
 * its next price check, which the kept queue record schedules).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from '@jest/globals';
import { KinesisClient } from '@aws-sdk/client-kinesis';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { analyticsStreamName } from '../../contracts/analytics-resources.js';
import { LOCAL_CREDENTIALS } from '../../local/dynamodb.js';
import { PROJECT, type LocalEndpoints } from '../../local/platform.js';
import { readStream } from '../integration/analytics/harness.js';
import { rawRequest, signedRequest, type Reply } from '../integration/local/support.js';
import { poll } from './support/edge.js';
import { killAll, npmStart, processTree, waitGone, whenReady } from './support/npm-start.js';

const dataDir = mkdtempSync(join(tmpdir(), 'gco-data-'));
const outDir = mkdtempSync(join(tmpdir(), 'gco-out-'));
const started: number[] = [];
afterAll(() => {
  killAll(started.flatMap((pid) => processTree(pid)));
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(outDir, { recursive: true, force: true });
});

const JSON_HEADERS = { 'content-type': 'application/json' };

type Call = { method?: string; path: string; body?: unknown; query?: Record<string, string> };

function apis(endpoints: LocalEndpoints) {
  const call = (base: string, region: string, c: Call): Promise<Reply> =>
    signedRequest(base, {
      method: c.method ?? 'GET',
      path: c.path,
      ...(c.query ? { query: c.query } : {}),
      ...(c.body === undefined ? {} : { headers: JSON_HEADERS, body: JSON.stringify(c.body) }),
      region,
      credentials: endpoints.credentials,
    });
  return {
    global: (c: Call) => call(endpoints.apis.global, endpoints.globalRegion, c),
    analytics: (c: Call) => call(endpoints.apis.analytics ?? '', endpoints.globalRegion, c),
    sendEvents: (applicationId: string, key: string, eventId = randomUUID()) =>
      rawRequest(`${endpoints.apis.analytics ?? ''}/applications/${applicationId}/events`, {
        method: 'POST',
        headers: [
          ['content-type', 'application/json'],
          ['Authorization', key],
        ],
        body: JSON.stringify({
          Events: [
            {
              event_id: eventId,
              event_type: 'gameplay',
              event_name: 'after_restart',
              event_timestamp: Date.now(),
              event_data: {},
            },
          ],
        }),
      }),
  };
}

function job(name: string) {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name },
    spec: {
      template: {
        spec: {
          restartPolicy: 'Never',
          containers: [
            { name: 'main', image: 'public.ecr.aws/docker/library/busybox:1.36', command: ['true'] },
          ],
        },
      },
    },
  };
}

/** Every record of the analytics events stream, read as a warehouse consumer would. */
async function streamRecords(endpoints: LocalEndpoints): Promise<Record<string, unknown>[]> {
  const kinesis = new KinesisClient({
    endpoint: endpoints.aws.kinesis,
    region: endpoints.globalRegion,
    credentials: LOCAL_CREDENTIALS,
    requestHandler: new NodeHttpHandler(),
  });
  try {
    return (await readStream(kinesis, analyticsStreamName(PROJECT))).map(
      (entry) => entry.record as Record<string, unknown>,
    );
  } finally {
    kinesis.destroy();
  }
}

/** Every file named LOCK below `dir` (LevelDB's lock files). */
function lockFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('LOCK'));
}

test('after kill -9 and a restart on the same data directory: application, key, webhook, Jobs, queue and credentials are kept', async () => {
  // ---- first run: create state, then kill -9 ----
  const first = npmStart(outDir, ['--data-dir', dataDir], { LOCAL_SPOT_PRICE: '1' });
  started.push(first.npm.pid ?? 0);
  const before = await whenReady(first, outDir);
  expect(first.output()).toContain(`State: kept in ${dataDir}`);
  const one = apis(before);

  const app = await one.analytics({ method: 'POST', path: '/applications', body: { Name: 'kept-game' } });
  expect(app.status).toBe(200);
  const applicationId = String(app.json.ApplicationId);
  const key = await one.analytics({
    method: 'POST',
    path: `/applications/${applicationId}/authorizations`,
    body: { Name: 'kept-key' },
  });
  expect(key.status).toBe(200);
  const apiKey = String(key.json.ApiKeyValue);
  const firstEvent = randomUUID();
  expect((await one.sendEvents(applicationId, apiKey, firstEvent)).status).toBe(200);

  const hook = await one.global({
    method: 'POST',
    path: '/api/v1/webhooks',
    body: { url: 'https://127.0.0.1:9/kept-hook', events: ['job.failed'] },
  });
  expect(hook.status).toBeLessThan(300);

  const ran = await one.global({
    method: 'POST',
    path: '/api/v1/manifests',
    body: { manifests: [job('kept-hello')], namespace: 'svc-jobs' },
  });
  expect(ran.status).toBe(200);
  const done = await poll(
    () => one.global({ path: '/api/v1/jobs/svc-jobs/kept-hello' }),
    (r) => r.json?.status === 'succeeded',
    30_000,
  );
  expect(done.json.status).toBe('succeeded');

  const queued = await one.global({
    method: 'POST',
    path: '/api/v1/queue/jobs',
    body: {
      manifest: job('kept-queued'),
      target_region: before.region,
      priority: 10,
      max_spot_price: 0.5,
      spot_instance_type: 'm5.large',
    },
  });
  expect(queued.status).toBe(200);
  const jobId = String(queued.json.job_id);
  // The worker polls every second: after three polls the job still waits for its price.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  expect((await one.global({ path: `/api/v1/queue/jobs/${jobId}` })).json.status).toBe('queued');

  const tree = processTree(first.npm.pid ?? 0);
  expect(tree).toContain(before.pid);
  for (const pid of [before.pid, first.npm.pid ?? 0]) process.kill(pid, 'SIGKILL');
  expect(await waitGone(tree, 10_000)).toEqual([]);
  // LevelDB's lock files stay behind after SIGKILL (the kernel released the locks themselves).
  expect(lockFiles(dataDir).length).toBeGreaterThanOrEqual(3);
  // So does the platform's pid file: it names a process that no longer runs, so the next start takes it.
  expect(readFileSync(join(dataDir, 'platform.pid'), 'utf8').trim()).toBe(String(before.pid));

  // ---- second run: the same directory, named by the environment variable this time ----
  const second = npmStart(outDir, [], { GCO_LOCAL_DATA_DIR: dataDir });
  started.push(second.npm.pid ?? 0);
  const after = await whenReady(second, outDir);
  expect(after.pid).not.toBe(before.pid);
  expect(after.credentials).toEqual(before.credentials);
  expect(after.signingKey).toBe(before.signingKey);
  const two = apis(after);

  const appAgain = await two.analytics({ path: `/applications/${applicationId}` });
  expect([appAgain.status, appAgain.json.ApplicationName]).toEqual([200, 'kept-game']);
  expect((await two.sendEvents(applicationId, apiKey)).status).toBe(200);
  // The event sent before the SIGKILL is still in the stream (kinesalite's LevelDB).
  expect((await streamRecords(after)).map((r) => r.event_id)).toContain(firstEvent);

  const hooks = await two.global({ path: '/api/v1/webhooks' });
  expect(JSON.stringify(hooks.json)).toContain('https://127.0.0.1:9/kept-hook');

  const hello = await two.global({ path: '/api/v1/jobs/svc-jobs/kept-hello' });
  expect([hello.status, hello.json.status]).toEqual([200, 'succeeded']);

  // The queue drains: the job is dispatched at the new price and runs to success. A price-gated job is
  // checked again 60 s after its last check (the queue's spot re-check interval, QUEUE_SPOT_RECHECK_MS),
  // which the kept record carries over the restart: up to a minute, plus the run.
  const drained = await poll(
    () => two.global({ path: `/api/v1/queue/jobs/${jobId}` }),
    (r) => r.json?.status === 'succeeded',
    100_000,
  );
  expect(drained.json.status).toBe('succeeded');

  // A clean stop removes endpoints.json and keeps the data directory.
  process.kill(second.npm.pid ?? 0, 'SIGTERM');
  expect(await waitGone(processTree(second.npm.pid ?? 0), 10_000)).toEqual([]);
  await second.exited;
  expect(existsSync(join(outDir, 'endpoints.json'))).toBe(false);
  expect(existsSync(join(dataDir, 'identity.json'))).toBe(true);
  expect(existsSync(join(dataDir, 'platform.pid'))).toBe(false);
}, 360_000);

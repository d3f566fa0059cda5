/**
 * The global aggregate routes across two regions, through the global API only: the aggregator Lambda
 * discovers the regional APIs in SSM, signs its fan-out with its own role's credentials (verified by
 * each regional API), and merges by region. With one region's ALB down, that region is reported failed
 * in place — never dropped — while the other answers, and the accelerator keeps serving from it.
 */
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { startLocalPlatform, type LocalPlatform } from '../../local/platform.js';
import { edgeClient, poll, type EdgeClient } from './support/edge.js';

// Starts the whole local platform (services, emulators, esbuild bundles) in this process: tests and
// hooks get an explicit budget here; the hook that starts it names its own.
jest.setTimeout(30_000);

// The accelerator prefers the first region: taking that one down also proves it fails over.
const DOWN = 'us-east-1';
const UP = 'us-west-2';
let platform: LocalPlatform;
let edge: EdgeClient;

beforeAll(async () => {
  platform = await startLocalPlatform({
    regions: [UP, DOWN],
    analytics: false,
    kubelet: { pendingMs: 50, runningMs: 150 },
  });
  edge = edgeClient(platform);
}, 40_000);
afterAll(() => platform?.close());

describe('both regions up', () => {
  test('health merges one answer per region', async () => {
    const reply = await edge.global({ path: '/api/v1/global/health' });
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.json.regions)).toEqual([DOWN, UP]);
    expect(reply.json.region_status).toEqual({ [DOWN]: 'healthy', [UP]: 'healthy' });
    expect([reply.json.regions[DOWN].body.region, reply.json.regions[UP].body.region]).toEqual([DOWN, UP]);
    expect(reply.json.failed_regions).toEqual([]);
  });
});

describe(`${DOWN} down`, () => {
  beforeAll(async () => {
    await platform.stopRegion(DOWN);
    // Submitted through the global API: the accelerator skips the down region's ALB.
    const submitted = await edge.global({
      method: 'POST',
      path: '/api/v1/manifests',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        namespace: 'svc-jobs',
        manifests: [
          {
            apiVersion: 'batch/v1',
            kind: 'Job',
            metadata: { name: 'aggregate-me' },
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
          },
        ],
      }),
    });
    expect(submitted.status).toBe(200);
  });

  test('health: the down region is unreachable, in place, and the answer is degraded', async () => {
    const reply = await edge.global({ path: '/api/v1/global/health' });
    expect(reply.status).toBe(200);
    expect(reply.json.status).toBe('degraded');
    expect(reply.json.region_status).toEqual({ [DOWN]: 'unreachable', [UP]: 'healthy' });
    expect(reply.json.failed_regions).toEqual([DOWN]);
    // The regional API answered: its proxy could not reach the region's ALB.
    expect(reply.json.regions[DOWN]).toMatchObject({
      ok: false,
      status: 502,
      error: expect.stringMatching(/^HTTP 502/),
    });
  });

  test('jobs: the healthy region’s jobs, tagged with their region; the down region listed as failed', async () => {
    const reply = await poll(
      () => edge.global({ path: '/api/v1/global/jobs', query: { namespace: 'svc-jobs' } }),
      (r) => (r.json?.jobs as unknown[] | undefined)?.length === 1,
    );
    expect(reply.status).toBe(200);
    expect(reply.json.jobs).toEqual([expect.objectContaining({ name: 'aggregate-me', region: UP })]);
    expect(reply.json.failed_regions).toEqual([DOWN]);
    expect(Object.keys(reply.json.regions)).toEqual([DOWN, UP]);
    expect(reply.json.regions[UP].ok).toBe(true);
  });

  test('status: every region present, the down one failed', async () => {
    const reply = await edge.global({ path: '/api/v1/global/status' });
    expect(reply.status).toBe(200);
    expect(reply.json.failed_regions).toEqual([DOWN]);
    expect(reply.json.regions[UP]).toMatchObject({ ok: true, status: 200 });
    expect(reply.json.regions[DOWN]).toMatchObject({ ok: false, status: 502 });
  });

  test('the down region’s own API answers 502; the global API serves from the other region', async () => {
    const regional = await edge.regional(DOWN, { path: '/api/v1/jobs' });
    expect(regional.status).toBe(502);
    const global = await edge.global({ path: '/api/v1/status' });
    expect([global.status, global.json.region]).toEqual([200, UP]);
  });
});

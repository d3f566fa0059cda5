/**
 * Pins the local OpenCost stand-in (local/opencost-stand-in.ts) to the shape of OpenCost's allocation API
 * (https://www.opencost.io/docs/integrations/api, /allocation/compute; pinned OpenCost 1.120.1, chart
 * 2.5.17): the `code`/`status`/`data` envelope, one allocation set per step keyed by the aggregate, and
 * the field names and types cost-monitor reads. Over real HTTP.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { startOpenCostStandIn, type OpenCostStandIn, CLUSTER } from '../../../local/opencost-stand-in.js';

const NUMBER_FIELDS = [
  'cpuCoreHours',
  'cpuCost',
  'gpuHours',
  'gpuCost',
  'ramByteHours',
  'ramCost',
  'pvByteHours',
  'pvCost',
  'networkTransferBytes',
  'networkReceiveBytes',
  'networkCost',
  'loadBalancerCost',
  'sharedCost',
  'externalCost',
  'totalCost',
  'minutes',
] as const;

describe('OpenCost stand-in: /allocation/compute in OpenCost’s documented shape', () => {
  let opencost: OpenCostStandIn;
  beforeAll(async () => {
    opencost = await startOpenCostStandIn();
  });
  afterAll(async () => opencost.close());

  const get = async (query: string): Promise<{ status: number; body: Record<string, unknown> }> => {
    const response = await fetch(`${opencost.url}/allocation/compute?${query}`);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const window = 'window=2024-05-01T09:00:00Z,2024-05-01T10:00:00Z';

  test('envelope: code 200, status success, data = one allocation set keyed by namespace/controller', async () => {
    const { status, body } = await get(
      `${window}&aggregate=namespace,controller&accumulate=true&includeIdle=true`,
    );
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(['code', 'data', 'status']);
    expect(body.code).toBe(200);
    expect(body.status).toBe('success');
    const sets = body.data as Record<string, Record<string, unknown>>[];
    expect(sets).toHaveLength(1);
    const keys = Object.keys(sets[0] ?? {});
    expect(keys).toEqual(
      expect.arrayContaining(['__idle__', 'svc-jobs/job:train-resnet', 'inference/__unallocated__']),
    );
    for (const key of keys)
      expect(key).toMatch(/^(__idle__|[a-z0-9-]+\/([a-z]+:[a-z0-9-]+|__unallocated__))$/);
  });

  test('each allocation: name, properties, window {start,end}, numeric costs, efficiency number or null', async () => {
    const { body } = await get(`${window}&aggregate=namespace,controller`);
    const set = (body.data as Record<string, Record<string, unknown>>[])[0] ?? {};
    for (const [key, allocation] of Object.entries(set)) {
      expect(allocation.name).toBe(key);
      expect(allocation.window).toEqual({ start: '2024-05-01T09:00:00Z', end: '2024-05-01T10:00:00Z' });
      expect(typeof allocation.start).toBe('string');
      expect(typeof allocation.end).toBe('string');
      expect((allocation.properties as Record<string, unknown>).cluster).toBe(CLUSTER);
      for (const field of NUMBER_FIELDS) expect(typeof allocation[field]).toBe('number');
      for (const field of ['cpuEfficiency', 'ramEfficiency', 'totalEfficiency']) {
        expect(allocation[field] === null || typeof allocation[field] === 'number').toBe(true);
      }
    }
    // OpenCost renders the idle allocation's NaN efficiency as null.
    expect((set.__idle__ as Record<string, unknown>).cpuEfficiency).toBeNull();
    const job = set['svc-jobs/job:train-resnet'] as { properties: Record<string, unknown>; minutes: number };
    expect(job.properties).toMatchObject({
      namespace: 'svc-jobs',
      controller: 'train-resnet',
      controllerKind: 'job',
    });
    expect(job.minutes).toBe(60);
  });

  test('aggregate=cluster: the cluster and __idle__ only', async () => {
    const { body } = await get(`${window}&aggregate=cluster`);
    expect(Object.keys((body.data as object[])[0] ?? {}).sort()).toEqual([CLUSTER, '__idle__'].sort());
  });

  test('a missing or malformed window is 400 with an error envelope', async () => {
    for (const query of ['aggregate=namespace', 'window=yesterday-ish', 'window=2024-05-01T09:00:00Z']) {
      const { status, body } = await get(query);
      expect(status).toBe(400);
      expect(body.code).toBe(400);
    }
  });

  test('other paths are 404', async () => {
    const response = await fetch(`${opencost.url}/allocation/nope`);
    expect(response.status).toBe(404);
    await response.text();
  });
});

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, test } from '@jest/globals';
import {
  OpenCostClient,
  OpenCostError,
  parseAllocationResponse,
  rfc3339,
} from '../../../cluster/cost-monitor/src/opencost.js';

describe('parseAllocationResponse (OpenCost response format)', () => {
  test('reads every step, the fields used, and treats null (NaN) and absent numbers as 0', () => {
    const allocations = parseAllocationResponse({
      code: 200,
      status: 'success',
      data: [
        {
          'ns/deployment:web': {
            name: 'ns/deployment:web',
            properties: {
              cluster: 'c',
              namespace: 'ns',
              controller: 'web',
              controllerKind: 'deployment',
              labels: {},
            },
            window: { start: '2024-05-01T09:00:00Z', end: '2024-05-01T10:00:00Z' },
            start: '2024-05-01T09:00:00Z',
            end: '2024-05-01T10:00:00Z',
            cpuCoreHours: 2,
            cpuCost: 0.06,
            cpuEfficiency: null,
            gpuCost: 'bogus',
            totalCost: 0.06,
          },
        },
        null,
        { __idle__: { name: '__idle__', totalCost: 1 } },
      ],
    });
    expect(allocations).toHaveLength(2);
    expect(allocations[0]).toMatchObject({
      key: 'ns/deployment:web',
      properties: { cluster: 'c', namespace: 'ns', controller: 'web', controllerKind: 'deployment' },
      start: '2024-05-01T09:00:00Z',
      end: '2024-05-01T10:00:00Z',
      values: { cpuCoreHours: 2, cpuCost: 0.06, cpuEfficiency: 0, gpuCost: 0, totalCost: 0.06, ramCost: 0 },
    });
    expect(allocations[1]!.key).toBe('__idle__');
  });

  test('an error code (even inside HTTP 200) and malformed bodies are errors', () => {
    expect(() => parseAllocationResponse({ code: 500, status: 'error', message: 'boom' })).toThrow(
      new OpenCostError('OpenCost error: boom', 'api'),
    );
    expect(() => parseAllocationResponse('nope')).toThrow(/non-object/);
    expect(() => parseAllocationResponse({ code: 200, data: {} })).toThrow(/data array/);
    expect(() => parseAllocationResponse({ code: 200, data: [[1]] })).toThrow(/not an object/);
    expect(parseAllocationResponse({ code: 200, data: null })).toEqual([]);
  });
});

describe('OpenCostClient', () => {
  test('asks /allocation/compute for an RFC 3339 window pair and maps failures', async () => {
    const seen: string[] = [];
    let status = 200;
    const server = createServer((req, res) => {
      seen.push(req.url ?? '');
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(status === 200 ? { code: 200, data: [{}] } : { code: status, message: 'bad window' }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const client = new OpenCostClient({
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
        timeoutMs: 2_000,
      });
      const window = { start: new Date('2024-05-01T09:00:00Z'), end: new Date('2024-05-01T10:00:00Z') };
      expect(await client.allocations(window, 'namespace,controller')).toEqual([]);
      expect(seen[0]).toBe(
        '/allocation/compute?window=2024-05-01T09%3A00%3A00Z%2C2024-05-01T10%3A00%3A00Z&aggregate=namespace%2Ccontroller&accumulate=true&includeIdle=true',
      );
      status = 400;
      await expect(client.allocations(window, 'cluster')).rejects.toMatchObject({
        reason: 'http',
        message: 'OpenCost answered HTTP 400: bad window',
      });
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  test('rfc3339 drops milliseconds', () => {
    expect(rfc3339(new Date('2024-05-01T09:00:00.000Z'))).toBe('2024-05-01T09:00:00Z');
  });
});

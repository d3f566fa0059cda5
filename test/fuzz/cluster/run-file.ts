/**
 * One test file of the suite: a fuzz region, the fixtures, the coverage check of its services, then one
 * test per operation.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { ClusterServiceName } from '../../../contracts/routing.js';
import { OPERATIONS } from '../../support/cluster-operations.js';
import { startFuzzRegion, type FuzzRegion } from './harness.js';
import { operationsOf, type Operation } from './operations.js';
import fc from 'fast-check';
import { validPath } from './requests.js';
import { createFixtures, fuzzOperation, RUNS_PER_OPERATION, SEED } from './suite.js';

/** Generous per operation: the bound is the runs, not the clock. */
const OPERATION_TIMEOUT_MS = 120_000;

export function fuzzFile(selection: { service: ClusterServiceName; operations: readonly string[] }[]): void {
  let region: FuzzRegion;
  const ops = new Map<string, Operation>();
  const key = (service: string, id: string) => `${service} ${id}`;

  beforeAll(async () => {
    region = await startFuzzRegion();
    await createFixtures(region);
    for (const { service } of selection) {
      for (const op of operationsOf(service, await region.openapi(service)))
        ops.set(key(service, op.operationId), op);
    }
  }, 60_000);
  afterAll(() => region?.close());

  test.each([...new Set(selection.map((s) => s.service))])(
    '%s: /openapi.json lists exactly the operations the suite fuzzes',
    (service) => {
      const listed = [...ops.keys()]
        .filter((k) => k.startsWith(`${service} `))
        .map((k) => k.slice(service.length + 1));
      expect(listed.sort()).toEqual([...OPERATIONS[service]].sort());
    },
  );

  test.each([...new Set(selection.map((s) => s.service))])(
    '%s: OPTIONS on every operation’s path answers 204 with the path’s methods',
    async (service) => {
      for (const op of [...ops.values()].filter((o) => o.service === service)) {
        const [target = '/'] = fc.sample(validPath(op), { seed: SEED, numRuns: 1 });
        const reply = await region.send(service, { method: 'OPTIONS', target });
        expect([op.operationId, reply.status]).toEqual([op.operationId, 204]);
        expect(String(reply.headers.allow).split(', ')).toContain(op.method);
      }
    },
  );

  const cases = selection.flatMap(({ service, operations }) =>
    operations.map((id) => [service, id] as const),
  );
  test.each(cases)(
    `%s %s (seed ${SEED}, ${RUNS_PER_OPERATION} runs)`,
    async (service, id) => {
      const op = ops.get(key(service, id));
      if (!op) throw new Error(`${service} does not publish ${id}`);
      await fuzzOperation(region, op);
    },
    OPERATION_TIMEOUT_MS,
  );
}

/**
 * Leader safety and regions: two manifest-processor replicas of one region (two reconcilers, two Lease
 * candidates, one simulator) apply each generation exactly once, counted on the wire; when the leader
 * stops, the other takes over; and two regions (two simulators, one table) each own only their objects
 * while the last region to finish a delete removes the record.
 */
import type { InferenceReconcilerService } from '../../../cluster/manifest-processor/src/inference-reconciler/index.js';
import { RECONCILER_LEASE } from '../../../cluster/manifest-processor/src/inference-reconciler/leader.js';
import { INFERENCE_NAMESPACE, type EndpointRecord } from '../../../contracts/inference-endpoints.js';
import { waitUntil } from '../../support/wait-for.js';
import {
  endpointObjectName,
  EndpointTable,
  OTHER_REGION,
  REGION,
  startCluster,
  startLocalDynamo,
  type LocalDynamo,
  type RegionCluster,
} from './harness.js';

const state = (record: EndpointRecord | undefined, region: string) => record?.regions[region];

describe('inference reconciler: replicas and regions', () => {
  let dynamo: LocalDynamo;
  let table: EndpointTable;
  const clusters: RegionCluster[] = [];

  beforeEach(async () => {
    dynamo = await startLocalDynamo();
    table = new EndpointTable(dynamo);
  });

  afterEach(async () => {
    for (const c of clusters.splice(0)) await c.close();
    await dynamo.close();
  });

  const reached = (name: string, region: string, generation: number, desired = 'running') =>
    waitUntil(
      () => table.get(name),
      (r) => state(r, region)?.state === desired && state(r, region)?.observed_generation === generation,
      `${name} ${desired} at generation ${generation} in ${region}`,
    );

  function holder(cluster: RegionCluster): string | undefined {
    const lease = cluster.sim.get('coordination.k8s.io/v1', 'Lease', INFERENCE_NAMESPACE, RECONCILER_LEASE);
    return (lease?.spec as { holderIdentity?: string } | undefined)?.holderIdentity;
  }

  /** Each server-side apply is counted once per object and generation label. */
  function duplicates(applies: string[]): string[] {
    const seen = new Set<string>();
    return applies.filter((a) => (seen.has(a) ? true : (seen.add(a), false)));
  }

  it('two replicas reconcile each generation exactly once; the other takes over when the leader stops', async () => {
    const cluster = await startCluster(REGION, dynamo);
    clusters.push(cluster);
    const replicas: Record<string, InferenceReconcilerService> = {
      'replica-a': cluster.newReconciler('replica-a'),
      'replica-b': cluster.newReconciler('replica-b'),
    };
    for (const r of Object.values(replicas)) r.start();

    await table.create('twice');
    await reached('twice', REGION, 1);
    const g2 = await table.update('twice', () => ({ replicas: 2 }));
    for (const r of Object.values(replicas)) r.trigger();
    await reached('twice', REGION, g2);
    const g3 = await table.update('twice', () => ({ image: 'registry.example/models/tiny:2' }));
    await reached('twice', REGION, g3);
    const g4 = await table.update('twice', () => ({
      canary: { image: 'registry.example/models/tiny:3', weight: 10 },
    }));
    await reached('twice', REGION, g4);

    const primary = endpointObjectName('twice', 'primary');
    const canary = endpointObjectName('twice', 'canary');
    // Let both loops run more passes: an idle pass applies nothing.
    const passes = Object.values(replicas).map((r) => r.loop.completedPasses);
    await waitUntil(
      () => Object.values(replicas).map((r) => r.loop.completedPasses),
      (now) => now.every((n, i) => n >= (passes[i] ?? 0) + 5),
      'five more passes of each replica',
    );
    const applies = cluster.applies();
    expect(duplicates(applies)).toEqual([]);
    expect(applies.sort()).toEqual(
      [
        `Deployment/${primary}@1`,
        `Service/${primary}@1`,
        `Deployment/${primary}@2`,
        `Service/${primary}@2`,
        `PodDisruptionBudget/${primary}@2`,
        `Deployment/${primary}@3`,
        `Service/${primary}@3`,
        `PodDisruptionBudget/${primary}@3`,
        `Deployment/${primary}@4`,
        `Service/${primary}@4`,
        `PodDisruptionBudget/${primary}@4`,
        `Deployment/${canary}@4`,
        `Service/${canary}@4`,
      ].sort(),
    );

    // The leader stops (releasing its Lease); the other replica reconciles the next change.
    const leader = holder(cluster) ?? '';
    expect(Object.keys(replicas)).toContain(leader);
    await replicas[leader]?.close();
    const g5 = await table.update('twice', () => ({ replicas: 3 }));
    await reached('twice', REGION, g5);
    expect(holder(cluster)).not.toBe(leader);
    expect(duplicates(cluster.applies())).toEqual([]);
    expect(
      cluster
        .applies()
        .filter((a) => a.endsWith('@5'))
        .sort(),
    ).toEqual(
      // Every object carries the record's generation, so the canary's labels move too.
      [
        `Deployment/${canary}@5`,
        `Deployment/${primary}@5`,
        `PodDisruptionBudget/${primary}@5`,
        `Service/${canary}@5`,
        `Service/${primary}@5`,
      ],
    );
  });

  it('each region owns only its objects; the record goes when the last listed region reports deleted', async () => {
    const east = await startCluster(REGION, dynamo);
    const west = await startCluster(OTHER_REGION, dynamo);
    clusters.push(east, west);
    const eastRec = east.newReconciler('east-1');
    const westRec = west.newReconciler('west-1');

    await table.create('both', { regions: [REGION, OTHER_REGION] });
    await table.create('east-only', { regions: [REGION] });
    eastRec.start();
    westRec.start();
    await reached('both', REGION, 1);
    await reached('both', OTHER_REGION, 1);
    await reached('east-only', REGION, 1);
    const names = (c: RegionCluster) =>
      c
        .objects('Deployment')
        .map((d) => d.metadata.name)
        .sort();
    expect(names(east)).toEqual([
      endpointObjectName('both', 'primary'),
      endpointObjectName('east-only', 'primary'),
    ]);
    expect(names(west)).toEqual([endpointObjectName('both', 'primary')]);
    expect(state(await table.get('east-only'), OTHER_REGION)).toBeUndefined();

    // West is down while the delete happens: east finishes, the record stays until west reports.
    await westRec.close();
    const deleting = await table.markDeleting('both');
    await reached('both', REGION, deleting, 'deleted');
    expect(east.objects('Deployment').map((d) => d.metadata.name)).toEqual([
      endpointObjectName('east-only', 'primary'),
    ]);
    expect(names(west)).toEqual([endpointObjectName('both', 'primary')]);
    expect(await table.get('both')).toBeDefined();

    const westAgain = west.newReconciler('west-2');
    westAgain.start();
    await waitUntil(
      () => table.get('both'),
      (r) => r === undefined,
      'record removed',
    );
    expect(west.objects('Deployment')).toEqual([]);
    expect(west.objects('Service')).toEqual([]);
    // Still no resurrection after more passes of both regions.
    const before = westAgain.loop.completedPasses;
    await waitUntil(
      () => westAgain.loop.completedPasses,
      (n) => n >= before + 3,
      'three more passes',
    );
    expect(await table.get('both')).toBeUndefined();
  });
});

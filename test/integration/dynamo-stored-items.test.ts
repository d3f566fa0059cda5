/**
 * The DynamoDB items the cluster stores write, byte for byte: each store's public operations run over
 * dynalite, then every table is read back raw (plain DynamoDBClient Scan, attribute-value JSON) and
 * compared with a snapshot. Values that change from run to run are replaced by placeholders where they
 * stand, never dropped: random ids (and digests of them) get numbered placeholders in order of first
 * appearance, so "this job_id is that pk" stays visible; the one wall-clock time gets a fixed name.
 */
import { ScanCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { WindowClaims } from '../../cluster/cost-monitor/src/claims.js';
import { DynamoEndpointSource } from '../../cluster/inference-proxy/src/store.js';
import { loadPolicyConfig, ValidationPolicy } from '../../cluster/manifest-processor/src/policy/index.js';
import { cancelQueuedJob, type QueuedJob } from '../../cluster/manifest-processor/src/queue/index.js';
import {
  claimOf,
  dispatchedAttributes,
  finishedAttributes,
  QueueStore,
  queuedAttributes,
} from '../../cluster/manifest-processor/src/queue/store.js';
import { submitJob } from '../../cluster/manifest-processor/src/queue/submission.js';
import { TemplateStore } from '../../cluster/manifest-processor/src/templates/index.js';
import { deliveryId } from '../../cluster/manifest-processor/src/webhooks/events.js';
import {
  DeliveryStore,
  pendingDelivery,
  WebhookStore,
  type DeliveryRecord,
  type Webhook,
  type WebhookEvent,
} from '../../cluster/manifest-processor/src/webhooks/store.js';
import { TABLES, type TableDefinition } from '../../contracts/tables.js';
import { startLocalDynamo, type LocalDynamo } from '../../local/dynamodb.js';
import { registerInferenceEndpoint } from '../../local/inference-endpoint.js';
import { POLICY_ENV } from '../support/cluster-fixtures.js';
import { jobManifest } from './queue/harness.js';

type Item = Record<string, AttributeValue>;

const T0 = Date.UTC(2025, 0, 2, 3, 4, 5, 678);
const REGION = 'us-east-1';
const RETENTION_DAYS = 30;

let dynamo: LocalDynamo;
let client: DynamoDBClient;

beforeAll(async () => {
  dynamo = await startLocalDynamo();
  client = dynamo.client();
});

afterAll(async () => {
  await dynamo.close();
});

const tableOf = (table: TableDefinition): string => dynamo.env[table.envVar] ?? '';

async function scan(table: TableDefinition): Promise<Item[]> {
  const items: Item[] = [];
  let start: Item | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: tableOf(table), ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

/** JSON with object keys sorted at every level (DynamoDB items are unordered maps). */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const RANDOM_VALUES: readonly { kind: string; pattern: RegExp }[] = [
  { kind: 'uuid', pattern: /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g },
  { kind: 'sha256', pattern: /\b[0-9a-f]{64}\b/g },
];

/** Raw items of each table, random values numbered in a stable order (items sorted with them masked). */
function withPlaceholders(tables: Record<string, Item[]>): Record<string, unknown[]> {
  const numbered = new Map<string, string>();
  const counts = new Map<string, number>();
  const name = (kind: string, value: string): string => {
    let placeholder = numbered.get(value);
    if (!placeholder) {
      const n = (counts.get(kind) ?? 0) + 1;
      counts.set(kind, n);
      placeholder = `<${kind}-${n}>`;
      numbered.set(value, placeholder);
    }
    return placeholder;
  };
  const generic = (text: string): string =>
    RANDOM_VALUES.reduce((t, { kind, pattern }) => t.replace(pattern, `<${kind}>`), text);
  const out: Record<string, unknown[]> = {};
  for (const [table, items] of Object.entries(tables)) {
    const texts = items.map(canonical).sort((a, b) => (generic(a) < generic(b) ? -1 : 1));
    out[table] = texts.map((text) =>
      JSON.parse(
        RANDOM_VALUES.reduce((t, { kind, pattern }) => t.replace(pattern, (m) => name(kind, m)), text),
      ),
    );
  }
  return out;
}

async function fillQueue(): Promise<void> {
  const store = new QueueStore(client, tableOf(TABLES.jobQueue));
  const deps = {
    store,
    policy: new ValidationPolicy(loadPolicyConfig(POLICY_ENV)),
    idempotencyTtlHours: 24,
    deploymentRegions: [REGION],
  };
  const submit = async (name: string, at: number, extra: Record<string, unknown> = {}, key?: string) =>
    (
      await submitJob(
        deps,
        {
          manifest: jobManifest(name),
          target_region: REGION,
          namespace: 'svc-jobs',
          priority: 0,
          ...extra,
        },
        key,
        at,
      )
    ).job;
  const claim = async (job: QueuedJob, now: number, worker = 'worker-a') => {
    const claimed = await store.tryTransition(job.job_id, {
      expect: { status: 'queued', claimed_by: null },
      set: {
        status: 'claimed',
        claimed_by: worker,
        lease_region: REGION,
        lease_expires_at: now + 30_000,
        dispatch_region: null,
        dispatch_order: null,
        waiting_reason: null,
        next_check_at: null,
      },
      incrementAttempts: true,
      now,
    });
    if (!claimed) throw new Error(`claim of ${job.job_id} failed`);
    return claimed;
  };

  // Queued with an Idempotency-Key (the key's record too), labels and a priority; its replay adds nothing.
  await submit('keyed', T0, { priority: 7, labels: { team: 'ml', tier: 'gold' } }, 'key-1');
  await submit('keyed', T0 + 50, { priority: 7, labels: { team: 'ml', tier: 'gold' } }, 'key-1');

  // Spot-gated and waiting for its price.
  const spot = await submit('spot', T0 + 1, { max_spot_price: 0.4, spot_instance_type: 'g5.xlarge' });
  await store.tryTransition(spot.job_id, {
    expect: { status: 'queued', claimed_by: null },
    set: { waiting_reason: 'spot price 0.52 above 0.4', next_check_at: T0 + 60_000, last_spot_price: 0.52 },
    now: T0 + 2,
  });

  // Cancelled while queued.
  const cancelled = await submit('cancelled', T0 + 3);
  await cancelQueuedJob(store, cancelled.job_id, 'no longer needed', T0 + 4, RETENTION_DAYS);

  // Claimed (and its lease renewed once).
  const held = await claim(await submit('held', T0 + 5), T0 + 6);
  await store.tryTransition(held.job_id, {
    expect: claimOf(held),
    set: { lease_expires_at: T0 + 40_000 },
    now: T0 + 7,
  });

  // Claimed, failed to apply, back in line with a retry time.
  const retried = await claim(await submit('retried', T0 + 8), T0 + 9);
  await store.tryTransition(retried.job_id, {
    expect: claimOf(retried),
    set: {
      ...queuedAttributes(retried),
      error: 'apply failed (attempt 1 of 3; retrying)',
      next_check_at: T0 + 1_009,
    },
    now: T0 + 10,
  });

  // Dispatched, then running and succeeded in its cluster.
  const finished = await claim(await submit('finished', T0 + 11), T0 + 12);
  const ref = { namespace: 'svc-jobs', name: 'finished-q1', uid: '11111111-2222-4333-8444-555555555555' };
  const dispatched = await store.tryTransition(finished.job_id, {
    expect: claimOf(finished),
    set: dispatchedAttributes(ref, REGION, T0 + 13),
    now: T0 + 13,
  });
  if (!dispatched) throw new Error('dispatch failed');
  const running = await store.tryTransition(finished.job_id, {
    expect: { status: 'dispatched', k8s_uid: ref.uid },
    set: { status: 'running', started_at: new Date(T0 + 14).toISOString() },
    now: T0 + 14,
  });
  if (!running) throw new Error('status sync failed');
  await store.tryTransition(finished.job_id, {
    expect: { status: 'running', k8s_uid: ref.uid },
    set: finishedAttributes('succeeded', T0 + 15, RETENTION_DAYS),
    now: T0 + 15,
  });

  // Dispatched and still there.
  const active = await claim(await submit('active', T0 + 16, { priority: 100 }), T0 + 17, 'worker-b');
  await store.tryTransition(active.job_id, {
    expect: claimOf(active),
    set: dispatchedAttributes(
      { ...ref, name: 'active-q2', uid: 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee' },
      REGION,
      T0 + 18,
    ),
    now: T0 + 18,
  });
}

async function fillTemplates(): Promise<void> {
  const store = new TemplateStore(client, tableOf(TABLES.jobTemplates));
  await store.create({
    name: 'training',
    description: 'Batch training job',
    manifest: {
      apiVersion: 'batch/v1',
      kind: 'Job',
      spec: { parallelism: '{{parallelism}}', backoffLimit: 0 },
    },
    parameters: { parallelism: 2, ratio: 0.25, tags: [], nothing: null, nested: { on: true } },
    now: new Date(T0),
  });
  await store.create({
    name: 'bare',
    description: null,
    manifest: { apiVersion: 'batch/v1', kind: 'Job' },
    parameters: null,
    now: new Date(T0 + 1),
  });
}

async function fillWebhooks(): Promise<void> {
  const webhooks = new WebhookStore(client, tableOf(TABLES.webhooks));
  const deliveries = new DeliveryStore(client, tableOf(TABLES.webhookDeliveries));
  const signed = await webhooks.create({
    url: 'https://hooks.example.com/jobs',
    events: ['job.completed', 'job.failed'],
    namespace: 'svc-jobs',
    secret: 'whsec-0123456789abcdef',
    now: new Date(T0),
  });
  const open = await webhooks.create({
    url: 'https://other.example.com/all',
    events: ['job.started'],
    namespace: null,
    secret: null,
    now: new Date(T0 + 1),
  });
  const removed = await webhooks.create({
    url: 'https://gone.example.com/',
    events: ['job.started', 'job.completed', 'job.failed'],
    namespace: null,
    secret: null,
    now: new Date(T0 + 2),
  });
  await webhooks.delete(removed.webhook_id);

  // As the job watcher enqueues them.
  const enqueue = async (webhook: Webhook, event: WebhookEvent, uid: string, at: number, order: number) => {
    const id = deliveryId(webhook.webhook_id, uid, event);
    const record = pendingDelivery({
      id,
      webhookId: webhook.webhook_id,
      event,
      job: { uid, namespace: 'svc-jobs', name: `job-${uid.slice(4, 8)}` },
      payload: JSON.stringify({ delivery_id: id, webhook_id: webhook.webhook_id, event, job: { uid } }),
      now: at,
      order,
      retentionDays: 7,
    });
    if (!(await deliveries.enqueue(record))) throw new Error(`enqueue of ${id} failed`);
    if (await deliveries.enqueue(record)) throw new Error(`second enqueue of ${id} succeeded`);
    return record;
  };
  // As the delivery worker claims (a version-guarded write with a lease) and settles them.
  const claim = async (record: DeliveryRecord, now: number) => {
    const claimed = await deliveries.replace(record, {
      ...record,
      status: 'delivering',
      attempts: record.attempts + 1,
      lease_owner: 'replica-0',
      lease_expires_at: now + 10_000,
      next_attempt_at: now + 10_000,
      updated_at: new Date(now).toISOString(),
    });
    if (!claimed) throw new Error(`claim of ${record.delivery_id} failed`);
    return claimed;
  };

  // Pending, never tried.
  await enqueue(open, 'job.started', '0000aaaa-0000-4000-8000-000000000001', T0 + 10, 0);

  // Delivered on the first attempt.
  const first = await claim(
    await enqueue(signed, 'job.completed', '0000bbbb-0000-4000-8000-000000000002', T0 + 20, 1),
    T0 + 21,
  );
  const delivered = await deliveries.replace(first, {
    ...first,
    status: 'delivered',
    next_attempt_at: null,
    lease_owner: null,
    lease_expires_at: null,
    last_error: null,
    last_status_code: 200,
    history: [
      {
        attempt: 1,
        at: new Date(T0 + 22).toISOString(),
        worker: 'replica-0',
        outcome: 'delivered',
        status_code: 200,
        error: null,
        duration_ms: 12,
      },
    ],
    updated_at: new Date(T0 + 22).toISOString(),
    delivered_at: new Date(T0 + 22).toISOString(),
  });
  if (!delivered) throw new Error('settle failed');
  // A worker whose lease was taken over cannot overwrite the result.
  if (await deliveries.replace(first, { ...first, status: 'dead' })) throw new Error('stale settle won');

  // Failed once on the network, waiting for its retry; still claimed on the second attempt.
  const failing = await claim(
    await enqueue(signed, 'job.failed', '0000cccc-0000-4000-8000-000000000003', T0 + 30, 0),
    T0 + 31,
  );
  const retrying = await deliveries.replace(failing, {
    ...failing,
    status: 'pending',
    next_attempt_at: T0 + 531,
    lease_owner: null,
    lease_expires_at: null,
    last_error: 'connect ECONNREFUSED',
    last_status_code: null,
    history: [
      {
        attempt: 1,
        at: new Date(T0 + 32).toISOString(),
        worker: 'replica-0',
        outcome: 'retry',
        status_code: null,
        error: 'connect ECONNREFUSED',
        duration_ms: 0,
      },
    ],
    updated_at: new Date(T0 + 32).toISOString(),
  });
  if (!retrying) throw new Error('retry failed');
  await claim(retrying, T0 + 600);
}

async function fillInferenceEndpoints(): Promise<void> {
  const table = tableOf(TABLES.inferenceEndpoints);
  await registerInferenceEndpoint(client, table, {
    name: 'llama',
    regions: ['us-east-1', 'eu-west-1'],
    service: 'llama-svc',
    port: 8443,
    servingPaths: ['/v1/chat/completions', '/v1/models/*'],
    healthPath: '/health',
  });
  await registerInferenceEndpoint(client, table, {
    name: 'tiny',
    regions: [],
    service: '127.0.0.1',
    port: 9000,
    servingPaths: [],
  });
  // The proxy reads what the registration wrote.
  const read = await new DynamoEndpointSource(client, table).fetch('llama');
  expect(read).toMatchObject({
    endpoint_name: 'llama',
    port: 8443,
    serving_paths: ['/v1/chat/completions', '/v1/models/*'],
  });
}

async function fillCostClaims(): Promise<void> {
  const table = tableOf(TABLES.costReports);
  const a = new WindowClaims(client, { table, region: REGION, owner: 'cost-a' });
  const b = new WindowClaims(client, { table, region: REGION, owner: 'cost-b', leaseSeconds: 60 });
  const hour = (h: number) => ({
    start: new Date(Date.UTC(2025, 0, 2, h)),
    end: new Date(Date.UTC(2025, 0, 2, h + 1)),
  });
  const at = (seconds: number) => new Date(T0 + seconds * 1000);

  // Written: claimed, report stored, indexed by its S3 key.
  expect(await a.claim(hour(1), at(0))).toEqual({ won: true });
  expect(await b.claim(hour(1), at(1))).toMatchObject({ won: false, status: 'claimed', owner: 'cost-a' });
  expect(await a.complete(hour(1), 'scheduled/date=2025-01-02/hour=01.json', at(2))).toBe(true);
  expect(await b.claim(hour(1), at(3))).toMatchObject({ won: false, status: 'written' });

  // Claimed by one replica, taken over by another after the lease, whose completion wins.
  expect(await a.claim(hour(2), at(0))).toEqual({ won: true });
  expect(await b.claim(hour(2), at(400))).toEqual({ won: true });
  expect(await a.complete(hour(2), 'stale.json', at(401))).toBe(false);

  // Claimed and released after a failure: no item left.
  expect(await a.claim(hour(3), at(0))).toEqual({ won: true });
  await b.release(hour(3));
  await a.release(hour(3));
}

test('every store writes exactly the items of the snapshot', async () => {
  await fillQueue();
  await fillTemplates();
  await fillWebhooks();
  await fillInferenceEndpoints();
  await fillCostClaims();

  const raw: Record<string, Item[]> = {};
  for (const table of [
    TABLES.jobQueue,
    TABLES.jobTemplates,
    TABLES.webhooks,
    TABLES.webhookDeliveries,
    TABLES.inferenceEndpoints,
    TABLES.costReports,
  ]) {
    raw[table.id] = await scan(table);
  }
  // The registration time is the wall clock: a named placeholder where it stands.
  for (const item of raw[TABLES.inferenceEndpoints.id] ?? []) {
    expect(item.updated_at?.S).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    item.updated_at = { S: '<registration time>' };
  }
  expect(withPlaceholders(raw)).toMatchSnapshot();
});

/**
 * DynamoDB tables of the platform, declared ONCE: the stacks create them from these definitions, the
 * services read their names from the environment variables named here, and tests/`npm start` create the
 * same tables in dynalite (local/dynamodb.ts). Central tables live in the global region and every
 * region's services reach them there; regional tables live in each region.
 *
 * Sparse indexes carry the queue's state machine: an item appears in `dispatch-index` only while it
 * waits to be dispatched, and in `lease-index` only while a worker holds it.
 */
export interface KeyAttribute {
  readonly name: string;
  readonly type: 'S' | 'N';
}

interface IndexDefinition {
  readonly indexName: string;
  readonly partitionKey: KeyAttribute;
  readonly sortKey?: KeyAttribute;
}

export interface TableDefinition {
  /** Suffix of the physical name: `<project>-<id>`. */
  readonly id: string;
  /** Environment variable that carries the physical name to the services. */
  readonly envVar: string;
  /** central: global region; regional: every deployment region; analytics: the analytics stack. */
  readonly scope: 'central' | 'regional' | 'analytics';
  readonly description: string;
  readonly partitionKey: KeyAttribute;
  readonly sortKey?: KeyAttribute;
  /** Global secondary indexes, all projecting ALL attributes. */
  readonly indexes: readonly IndexDefinition[];
  /** Epoch-seconds attribute DynamoDB's TTL deletes expired items by. */
  readonly ttlAttribute?: string;
}

const S = (name: string): KeyAttribute => ({ name, type: 'S' });
const N = (name: string): KeyAttribute => ({ name, type: 'N' });

export const TABLES = {
  jobQueue: {
    id: 'job-queue',
    envVar: 'JOB_QUEUE_TABLE',
    scope: 'central',
    description:
      'Central job queue: queued jobs (pk = job id) and idempotency records (pk = "idempotency#<key>")',
    partitionKey: S('pk'),
    indexes: [
      // Present only while a job waits for dispatch: pk = target region, sk = "<inverted priority>#<created>#<id>".
      { indexName: 'dispatch-index', partitionKey: S('dispatch_region'), sortKey: S('dispatch_order') },
      // Present only while a worker holds a lease: pk = target region, sk = lease expiry (epoch ms).
      { indexName: 'lease-index', partitionKey: S('lease_region'), sortKey: N('lease_expires_at') },
      // Every job, newest first per region / overall, for listing with an opaque cursor.
      { indexName: 'region-created-index', partitionKey: S('target_region'), sortKey: S('created_at') },
      { indexName: 'all-created-index', partitionKey: S('record_type'), sortKey: S('created_at') },
    ],
    ttlAttribute: 'expires_at',
  },
  jobTemplates: {
    id: 'job-templates',
    envVar: 'JOB_TEMPLATES_TABLE',
    scope: 'central',
    description: 'Job templates by name',
    partitionKey: S('name'),
    indexes: [],
  },
  webhooks: {
    id: 'webhooks',
    envVar: 'WEBHOOKS_TABLE',
    scope: 'central',
    description: 'Webhook registrations by id',
    partitionKey: S('webhook_id'),
    indexes: [],
  },
  webhookDeliveries: {
    id: 'webhook-deliveries',
    envVar: 'WEBHOOK_DELIVERIES_TABLE',
    scope: 'central',
    description: 'Durable webhook delivery outbox: one item per (webhook, job, event), claimed conditionally',
    partitionKey: S('delivery_id'),
    indexes: [
      // Present only while a delivery is due: pk = "pending", sk = next attempt (epoch ms).
      { indexName: 'pending-index', partitionKey: S('pending'), sortKey: N('next_attempt_at') },
    ],
    ttlAttribute: 'expires_at',
  },
  inferenceEndpoints: {
    id: 'inference-endpoints',
    envVar: 'INFERENCE_ENDPOINTS_TABLE',
    scope: 'central',
    description: 'Managed inference endpoints by name, with their state per region',
    partitionKey: S('endpoint_name'),
    indexes: [],
  },
  costReports: {
    id: 'cost-reports',
    envVar: 'COST_REPORTS_TABLE',
    scope: 'regional',
    description: 'Scheduled cost-report windows claimed exactly once per region (the reports are S3 objects)',
    partitionKey: S('report_key'),
    indexes: [],
    ttlAttribute: 'expires_at',
  },
} as const satisfies Record<string, TableDefinition>;

export type TableId = keyof typeof TABLES;

/**
 * `""` for generation 1 (the plain names), `-g<N>` otherwise: a redeploy with a new generation creates
 * new retained resources beside those a destroyed deployment kept (docs/operations.md, "Teardown and
 * redeploy"). Here, not in lib/names.ts: the service images copy only this file of lib/ (cluster/Dockerfile).
 */
export function generationSuffix(generation: number): string {
  if (!Number.isInteger(generation) || generation < 1) {
    throw new Error(`resource generation must be an integer of at least 1, got ${generation}`);
  }
  return generation === 1 ? '' : `-g${generation}`;
}

/**
 * Physical table name: `<project>-<id>`, plus `-g<N>` from resource generation 2 on (tables are retained
 * by `cdk destroy` under removal_policy "retain"). Regional tables share the name in every region.
 */
export function tableName(project: string, table: TableDefinition, generation = 1): string {
  return `${project}-${table.id}${generationSuffix(generation)}`;
}

/** Environment variables that point a service at every table of a deployment. */
export function tableEnvironment(project: string, generation = 1): Record<string, string> {
  return Object.fromEntries(Object.values(TABLES).map((t) => [t.envVar, tableName(project, t, generation)]));
}

/**
 * DynamoDB state of webhooks (contracts/tables.ts): registrations (TABLES.webhooks) and the delivery outbox
 * (TABLES.webhookDeliveries). dynalite has no transactions, so every state change is one conditional
 * single-item write:
 * - enqueue: Put with attribute_not_exists(delivery_id); ids are deterministic, so replicas enqueue once;
 * - claim and settle: Put guarded by the item's `version`, which every write increments, so exactly one
 *   worker wins a claim and a worker whose lease was taken over cannot overwrite the new owner's result.
 * A due item carries `pending` = "pending" (the sparse pending-index key); a claim pushes next_attempt_at
 * to the lease expiry, so a crashed worker's item becomes due again by itself.
 */
import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, paginateQuery, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import {
  asMap,
  listAttribute,
  numberAttribute,
  scanItems,
  stringAttribute,
  TableStore,
  unlessConditionFailed,
  withoutNulls,
  type StoredItem,
} from '../../../shared/dynamo.js';

import { WEBHOOK_EVENTS, type WebhookEvent } from '../../../../contracts/api/manifest-processor-central.js';

export { WEBHOOK_EVENTS, type WebhookEvent } from '../../../../contracts/api/manifest-processor-central.js';

const PENDING = 'pending';
const PENDING_INDEX = 'pending-index';

export interface Webhook {
  webhook_id: string;
  url: string;
  events: WebhookEvent[];
  namespace: string | null;
  /** Never leaves the service: views show `has_secret`. */
  secret: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookView {
  webhook_id: string;
  url: string;
  events: WebhookEvent[];
  namespace: string | null;
  has_secret: boolean;
  created_at: string;
  updated_at: string;
}

export function webhookView(w: Webhook): WebhookView {
  return {
    webhook_id: w.webhook_id,
    url: w.url,
    events: w.events,
    namespace: w.namespace,
    has_secret: w.secret !== null,
    created_at: w.created_at,
    updated_at: w.updated_at,
  };
}

function isEvent(value: unknown): value is WebhookEvent {
  return typeof value === 'string' && (WEBHOOK_EVENTS as readonly string[]).includes(value);
}

function webhookFrom(item: StoredItem): Webhook {
  return {
    webhook_id: stringAttribute(item, 'webhook_id') ?? '',
    url: stringAttribute(item, 'url') ?? '',
    events: listAttribute(item, 'events').filter(isEvent),
    namespace: stringAttribute(item, 'namespace'),
    secret: stringAttribute(item, 'secret'),
    created_at: stringAttribute(item, 'created_at') ?? '',
    updated_at: stringAttribute(item, 'updated_at') ?? '',
  };
}

export class WebhookStore extends TableStore {
  async create(input: {
    url: string;
    events: readonly WebhookEvent[];
    namespace: string | null;
    secret: string | null;
    now?: Date;
  }): Promise<Webhook> {
    const at = (input.now ?? new Date()).toISOString();
    const webhook: Webhook = {
      webhook_id: randomUUID(),
      url: input.url,
      events: [...input.events],
      namespace: input.namespace,
      secret: input.secret,
      created_at: at,
      updated_at: at,
    };
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: withoutNulls({ ...webhook }),
        ConditionExpression: 'attribute_not_exists(webhook_id)',
      }),
    );
    return webhook;
  }

  async get(webhookId: string): Promise<Webhook | undefined> {
    const out = await this.doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { webhook_id: webhookId },
        ConsistentRead: true,
      }),
    );
    return out.Item ? webhookFrom(out.Item) : undefined;
  }

  /** Every registration (oldest first), optionally only those filtered to exactly `namespace`. */
  async list(namespace?: string): Promise<Webhook[]> {
    const all = (await scanItems(this.doc, { TableName: this.tableName })).map(webhookFrom);
    return all
      .filter((w) => namespace === undefined || w.namespace === namespace)
      .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.webhook_id.localeCompare(b.webhook_id));
  }

  async delete(webhookId: string): Promise<boolean> {
    const deleted = await unlessConditionFailed(
      this.doc.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { webhook_id: webhookId },
          ConditionExpression: 'attribute_exists(webhook_id)',
        }),
      ),
    );
    return deleted !== undefined;
  }
}

export type DeliveryStatus =
  /** Waiting for its first or next attempt. */
  | 'pending'
  /** Claimed by a worker (lease). */
  | 'delivering'
  | 'delivered'
  /** Permanent failure: 4xx (but 408/429), a redirect, or a refused target. */
  | 'failed'
  /** Retryable failures until the attempts ran out. */
  | 'dead'
  /** Its webhook was deleted before it was delivered. */
  | 'cancelled';

export interface AttemptRecord {
  attempt: number;
  at: string;
  worker: string;
  outcome: 'delivered' | 'retry' | 'failed' | 'dead';
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

export interface DeliveryRecord {
  delivery_id: string;
  webhook_id: string;
  event: WebhookEvent;
  job_uid: string;
  job_namespace: string;
  job_name: string;
  /** The exact request body (JSON text), fixed at enqueue time so every attempt sends the same bytes. */
  payload: string;
  status: DeliveryStatus;
  /** Attempts started so far (a claim starts one). */
  attempts: number;
  version: number;
  /** Epoch ms; set only while the item is in pending-index (due, or leased until then). */
  next_attempt_at: number | null;
  lease_owner: string | null;
  lease_expires_at: number | null;
  last_error: string | null;
  last_status_code: number | null;
  history: AttemptRecord[];
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
  /** TTL, epoch seconds. */
  expires_at: number;
}

/** What the watcher knows of one (webhook, job, event) when it enqueues the delivery. */
interface NewDelivery {
  id: string;
  webhookId: string;
  event: WebhookEvent;
  job: { uid: string; namespace: string; name: string };
  /** The request body as JSON text (see DeliveryRecord.payload). */
  payload: string;
  /** Epoch ms of the enqueueing pass. */
  now: number;
  /** The event's place among those found in one pass. */
  order: number;
  retentionDays: number;
}

/** The outbox item the job watcher enqueues: pending, due at once, no attempt yet. */
export function pendingDelivery(d: NewDelivery): DeliveryRecord {
  const created = new Date(d.now).toISOString();
  return {
    delivery_id: d.id,
    webhook_id: d.webhookId,
    event: d.event,
    job_uid: d.job.uid,
    job_namespace: d.job.namespace,
    job_name: d.job.name,
    payload: d.payload,
    status: 'pending',
    attempts: 0,
    version: 0,
    // Events found in one pass keep their order in the index (started before completed).
    next_attempt_at: d.now + d.order,
    lease_owner: null,
    lease_expires_at: null,
    last_error: null,
    last_status_code: null,
    history: [],
    created_at: created,
    updated_at: created,
    delivered_at: null,
    expires_at: Math.floor(d.now / 1000) + d.retentionDays * 86_400,
  };
}

function attemptFrom(value: unknown): AttemptRecord | undefined {
  const attempt = asMap(value);
  if (!attempt) return undefined;
  const outcome = stringAttribute(attempt, 'outcome');
  return {
    attempt: numberAttribute(attempt, 'attempt') ?? 0,
    at: stringAttribute(attempt, 'at') ?? '',
    worker: stringAttribute(attempt, 'worker') ?? '',
    outcome: outcome === 'delivered' || outcome === 'failed' || outcome === 'dead' ? outcome : 'retry',
    status_code: numberAttribute(attempt, 'status_code'),
    error: stringAttribute(attempt, 'error'),
    duration_ms: numberAttribute(attempt, 'duration_ms') ?? 0,
  };
}

const STATUSES: readonly DeliveryStatus[] = [
  'pending',
  'delivering',
  'delivered',
  'failed',
  'dead',
  'cancelled',
];

function deliveryFrom(item: StoredItem): DeliveryRecord {
  const str = (name: string) => stringAttribute(item, name);
  const num = (name: string) => numberAttribute(item, name);
  const status = str('status');
  const event = str('event');
  return {
    delivery_id: str('delivery_id') ?? '',
    webhook_id: str('webhook_id') ?? '',
    event: isEvent(event) ? event : 'job.started',
    job_uid: str('job_uid') ?? '',
    job_namespace: str('job_namespace') ?? '',
    job_name: str('job_name') ?? '',
    payload: str('payload') ?? '',
    status: STATUSES.find((s) => s === status) ?? 'pending',
    attempts: num('attempts') ?? 0,
    version: num('version') ?? 0,
    next_attempt_at: num('next_attempt_at'),
    lease_owner: str('lease_owner'),
    lease_expires_at: num('lease_expires_at'),
    last_error: str('last_error'),
    last_status_code: num('last_status_code'),
    history: listAttribute(item, 'history')
      .map(attemptFrom)
      .filter((a): a is AttemptRecord => a !== undefined),
    created_at: str('created_at') ?? '',
    updated_at: str('updated_at') ?? '',
    delivered_at: str('delivered_at'),
    expires_at: num('expires_at') ?? 0,
  };
}

function deliveryItem(d: DeliveryRecord): StoredItem {
  const inIndex = d.status === 'pending' || d.status === 'delivering';
  return withoutNulls({
    ...d,
    pending: inIndex ? PENDING : null,
    next_attempt_at: inIndex ? d.next_attempt_at : null,
  });
}

export class DeliveryStore extends TableStore {
  /** Creates the outbox item unless one with the same id exists; true when this call created it. */
  async enqueue(record: DeliveryRecord): Promise<boolean> {
    const created = await unlessConditionFailed(
      this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: deliveryItem(record),
          ConditionExpression: 'attribute_not_exists(delivery_id)',
        }),
      ),
    );
    return created !== undefined;
  }

  async get(deliveryId: string): Promise<DeliveryRecord | undefined> {
    const out = await this.doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { delivery_id: deliveryId },
        ConsistentRead: true,
      }),
    );
    return out.Item ? deliveryFrom(out.Item) : undefined;
  }

  /** Every outbox item (operators and tests; not on any hot path). */
  async list(): Promise<DeliveryRecord[]> {
    return (await scanItems(this.doc, { TableName: this.tableName })).map(deliveryFrom);
  }

  /** Items due at `now`, oldest first (the index is eventually consistent: claims re-check). */
  async due(now: number, limit: number): Promise<DeliveryRecord[]> {
    const out = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: PENDING_INDEX,
        KeyConditionExpression: '#pending = :pending AND next_attempt_at <= :now',
        ExpressionAttributeNames: { '#pending': 'pending' },
        ExpressionAttributeValues: { ':pending': PENDING, ':now': now },
        ScanIndexForward: true,
        Limit: limit,
      }),
    );
    return (out.Items ?? []).map(deliveryFrom);
  }

  /**
   * The outbox backlog for the WebhookOutboxDepth / OldestWebhookOutboxEntryAgeSeconds metrics: every
   * undelivered item (pending-index holds exactly the pending and delivering ones, due or not) and the
   * earliest created_at among them. One paginated Query projecting only created_at: the index is ordered
   * by next attempt, not by age, so the oldest item can be anywhere in it.
   */
  async backlog(): Promise<{ depth: number; oldestCreatedAt: string | undefined }> {
    let depth = 0;
    let oldest: string | undefined;
    const pages = paginateQuery(
      { client: this.doc },
      {
        TableName: this.tableName,
        IndexName: PENDING_INDEX,
        KeyConditionExpression: '#pending = :pending',
        ProjectionExpression: 'created_at',
        ExpressionAttributeNames: { '#pending': 'pending' },
        ExpressionAttributeValues: { ':pending': PENDING },
      },
    );
    for await (const page of pages) {
      for (const item of page.Items ?? []) {
        depth++;
        const created = stringAttribute(item, 'created_at');
        if (created && (oldest === undefined || created < oldest)) oldest = created;
      }
    }
    return { depth, oldestCreatedAt: oldest };
  }

  /**
   * Replaces `expected` with `next` only if nobody wrote the item since `expected` was read; `next`
   * gets version + 1. Returns the written record, or undefined when another writer got there first.
   */
  async replace(expected: DeliveryRecord, next: DeliveryRecord): Promise<DeliveryRecord | undefined> {
    const written = { ...next, version: expected.version + 1 };
    const put = await unlessConditionFailed(
      this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: deliveryItem(written),
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: { ':version': expected.version },
        }),
      ),
    );
    return put && written;
  }
}

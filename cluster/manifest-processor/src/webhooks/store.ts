/**
 * DynamoDB state of webhooks (lib/tables.ts): registrations (TABLES.webhooks) and the delivery outbox
 * (TABLES.webhookDeliveries). dynalite has no transactions, so every state change is one conditional
 * single-item write:
 * - enqueue: Put with attribute_not_exists(delivery_id); ids are deterministic, so replicas enqueue once;
 * - claim and settle: Put guarded by the item's `version`, which every write increments, so exactly one
 *   worker wins a claim and a worker whose lease was taken over cannot overwrite the new owner's result.
 * A due item carries `pending` = "pending" (the sparse pending-index key); a claim pushes next_attempt_at
 * to the lease expiry, so a crashed worker's item becomes due again by itself.
 */
import { randomUUID } from 'node:crypto';
import {
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { fromItem, isConditionFailure, num, str, toItem, type Json } from './attributes.js';

export const WEBHOOK_EVENTS = ['job.completed', 'job.failed', 'job.started'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

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

function isEvent(value: Json): value is WebhookEvent {
  return typeof value === 'string' && (WEBHOOK_EVENTS as readonly string[]).includes(value);
}

function webhookFrom(item: Record<string, AttributeValue>): Webhook {
  const r = fromItem(item);
  return {
    webhook_id: str(r.webhook_id) ?? '',
    url: str(r.url) ?? '',
    events: Array.isArray(r.events) ? r.events.filter(isEvent) : [],
    namespace: str(r.namespace),
    secret: str(r.secret),
    created_at: str(r.created_at) ?? '',
    updated_at: str(r.updated_at) ?? '',
  };
}

async function scanAll(client: DynamoDBClient, tableName: string) {
  const items: Record<string, AttributeValue>[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: tableName, ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

export class WebhookStore {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
  ) {}

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
    await this.client.send(
      new PutItemCommand({
        TableName: this.tableName,
        Item: toItem({ ...webhook }),
        ConditionExpression: 'attribute_not_exists(webhook_id)',
      }),
    );
    return webhook;
  }

  async get(webhookId: string): Promise<Webhook | undefined> {
    const out = await this.client.send(
      new GetItemCommand({
        TableName: this.tableName,
        Key: { webhook_id: { S: webhookId } },
        ConsistentRead: true,
      }),
    );
    return out.Item ? webhookFrom(out.Item) : undefined;
  }

  /** Every registration (oldest first), optionally only those filtered to exactly `namespace`. */
  async list(namespace?: string): Promise<Webhook[]> {
    const all = (await scanAll(this.client, this.tableName)).map(webhookFrom);
    return all
      .filter((w) => namespace === undefined || w.namespace === namespace)
      .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.webhook_id.localeCompare(b.webhook_id));
  }

  async delete(webhookId: string): Promise<boolean> {
    try {
      await this.client.send(
        new DeleteItemCommand({
          TableName: this.tableName,
          Key: { webhook_id: { S: webhookId } },
          ConditionExpression: 'attribute_exists(webhook_id)',
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
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

function attemptFrom(value: Json): AttemptRecord | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const outcome = str(value.outcome);
  return {
    attempt: num(value.attempt) ?? 0,
    at: str(value.at) ?? '',
    worker: str(value.worker) ?? '',
    outcome: outcome === 'delivered' || outcome === 'failed' || outcome === 'dead' ? outcome : 'retry',
    status_code: num(value.status_code),
    error: str(value.error),
    duration_ms: num(value.duration_ms) ?? 0,
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

export function deliveryFrom(item: Record<string, AttributeValue>): DeliveryRecord {
  const r = fromItem(item);
  const status = str(r.status);
  const event = r.event ?? null;
  return {
    delivery_id: str(r.delivery_id) ?? '',
    webhook_id: str(r.webhook_id) ?? '',
    event: isEvent(event) ? event : 'job.started',
    job_uid: str(r.job_uid) ?? '',
    job_namespace: str(r.job_namespace) ?? '',
    job_name: str(r.job_name) ?? '',
    payload: str(r.payload) ?? '',
    status: STATUSES.find((s) => s === status) ?? 'pending',
    attempts: num(r.attempts) ?? 0,
    version: num(r.version) ?? 0,
    next_attempt_at: num(r.next_attempt_at),
    lease_owner: str(r.lease_owner),
    lease_expires_at: num(r.lease_expires_at),
    last_error: str(r.last_error),
    last_status_code: num(r.last_status_code),
    history: Array.isArray(r.history)
      ? r.history.map(attemptFrom).filter((a): a is AttemptRecord => a !== undefined)
      : [],
    created_at: str(r.created_at) ?? '',
    updated_at: str(r.updated_at) ?? '',
    delivered_at: str(r.delivered_at),
    expires_at: num(r.expires_at) ?? 0,
  };
}

function deliveryItem(d: DeliveryRecord): Record<string, AttributeValue> {
  const inIndex = d.status === 'pending' || d.status === 'delivering';
  return toItem({
    ...d,
    history: d.history.map((h) => ({ ...h })),
    pending: inIndex ? PENDING : null,
    next_attempt_at: inIndex ? d.next_attempt_at : null,
  });
}

export class DeliveryStore {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
  ) {}

  /** Creates the outbox item unless one with the same id exists; true when this call created it. */
  async enqueue(record: DeliveryRecord): Promise<boolean> {
    try {
      await this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: deliveryItem(record),
          ConditionExpression: 'attribute_not_exists(delivery_id)',
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async get(deliveryId: string): Promise<DeliveryRecord | undefined> {
    const out = await this.client.send(
      new GetItemCommand({
        TableName: this.tableName,
        Key: { delivery_id: { S: deliveryId } },
        ConsistentRead: true,
      }),
    );
    return out.Item ? deliveryFrom(out.Item) : undefined;
  }

  /** Every outbox item (operators and tests; not on any hot path). */
  async list(): Promise<DeliveryRecord[]> {
    return (await scanAll(this.client, this.tableName)).map(deliveryFrom);
  }

  /** Items due at `now`, oldest first (the index is eventually consistent: claims re-check). */
  async due(now: number, limit: number): Promise<DeliveryRecord[]> {
    const out = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: PENDING_INDEX,
        KeyConditionExpression: '#pending = :pending AND next_attempt_at <= :now',
        ExpressionAttributeNames: { '#pending': 'pending' },
        ExpressionAttributeValues: { ':pending': { S: PENDING }, ':now': { N: String(now) } },
        ScanIndexForward: true,
        Limit: limit,
      }),
    );
    return (out.Items ?? []).map(deliveryFrom);
  }

  /**
   * Replaces `expected` with `next` only if nobody wrote the item since `expected` was read; `next`
   * gets version + 1. Returns the written record, or undefined when another writer got there first.
   */
  async replace(expected: DeliveryRecord, next: DeliveryRecord): Promise<DeliveryRecord | undefined> {
    const written = { ...next, version: expected.version + 1 };
    try {
      await this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: deliveryItem(written),
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: { ':version': { N: String(expected.version) } },
        }),
      );
      return written;
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }
}

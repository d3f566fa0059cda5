/**
 * The central job-queue table. Every state change is ONE conditional UpdateItem on the state the caller
 * expects (status, and for claims the owner + attempt), so concurrent workers, reapers and cancels can
 * never both win; the loser sees `undefined` and re-reads. No transactions: single-item conditions only.
 */
import {
  DeleteCommand,
  GetCommand,
  paginateQuery,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import {
  numberAttribute,
  queryItems,
  stringAttribute,
  TableStore,
  unlessConditionFailed,
  type StoredItem,
} from '../../../shared/dynamo.js';
import {
  dispatchOrder,
  IDEMPOTENCY_PREFIX,
  isQueueStatus,
  itemToJob,
  jobToItem,
  overlaidJob,
  RECORD_TYPE_JOB,
  syncPartition,
  type AttributeUpdate,
  type K8sRef,
  type QueuedJob,
} from './record.js';
import { QUEUE_STATUSES, type QueueStatus } from './schemas.js';

/** A key of the table or of one of its indexes (LastEvaluatedKey, ExclusiveStartKey). */
export type Key = StoredItem;

/** What a transition requires of the current item. `null` means "attribute absent". */
export interface Expectation {
  status: QueueStatus;
  claimed_by?: string | null;
  attempts?: number;
  lease_expires_at?: number;
  k8s_uid?: string;
}

export interface Transition {
  expect: Expectation;
  /** Attributes to set; `null` removes the attribute (and with it the item's place in a sparse index). */
  set: Record<string, AttributeUpdate>;
  /** Adds 1 to `attempts` (a new claim). */
  incrementAttempts?: boolean;
  now: number;
  /**
   * The job as the caller last read it (for a claim: from dispatch-index). With it, tryTransition()
   * reads back only the attributes this write sets (ReturnValues UPDATED_NEW, not the whole item with
   * its manifest) and lays them over `current`; its other fields keep the values read, so pass it only
   * when those cannot matter or change meanwhile (a job's content is immutable once queued).
   * https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateItem.html#DDB-UpdateItem-request-ReturnValues
   */
  current?: QueuedJob;
}

export interface IdempotencyRecord {
  key: string;
  request_hash: string;
  job_id: string;
  created_at: string;
  /** Epoch seconds (the table's TTL attribute). */
  expires_at: number;
}

export interface ListFilter {
  targetRegion?: string | undefined;
  status?: QueueStatus | undefined;
  namespace?: string | undefined;
  limit: number;
  startKey?: Key | undefined;
}

export interface ListPage {
  jobs: QueuedJob[];
  /** Key after the last returned job, or undefined on the last page. */
  nextKey: Key | undefined;
}

type StatusCounts = Record<QueueStatus, number> & { total: number };

export interface QueueStats {
  total: number;
  by_status: StatusCounts;
  by_region: Record<string, StatusCounts>;
}

const emptyCounts = (): StatusCounts =>
  Object.assign({ total: 0 }, Object.fromEntries(QUEUE_STATUSES.map((s) => [s, 0]))) as StatusCounts;

/** Rounds of Query a list request may spend filling one page (sparse filters end a page early). */
const MAX_LIST_ROUNDS = 10;
const MAX_QUERY_PAGES = 50;

export class QueueStore extends TableStore {
  // ---- jobs ----------------------------------------------------------------------------------------

  async getJob(jobId: string): Promise<QueuedJob | undefined> {
    if (jobId.startsWith(IDEMPOTENCY_PREFIX)) return undefined; // never expose idempotency records
    const out = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: { pk: jobId }, ConsistentRead: true }),
    );
    return itemToJob(out.Item);
  }

  /** Writes a new job; false when an item with that id exists already. */
  async createJob(job: QueuedJob): Promise<boolean> {
    const written = await unlessConditionFailed(
      this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: jobToItem(job),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
    return written !== undefined;
  }

  /**
   * One conditional UpdateItem. Returns the job as written, or undefined when the item is not in the
   * expected state (someone else moved it first).
   */
  async tryTransition(jobId: string, t: Transition): Promise<QueuedJob | undefined> {
    if (t.current === undefined) {
      const out = await this.update(jobId, t, 'ALL_NEW');
      return out && itemToJob(out.Attributes);
    }
    if (Object.keys(t.set).some((attr) => attr.startsWith('k8s_'))) {
      // QueuedJob.k8s is composed of three attributes: overlaidJob() does not rebuild it.
      throw new Error('a write that sets the Kubernetes reference must read the item back (no `current`)');
    }
    const out = await this.update(jobId, t, 'UPDATED_NEW');
    return out && overlaidJob(t.current, t.set, out.Attributes ?? {});
  }

  /** tryTransition() for callers that only need to know whether it happened: the item is not sent back. */
  async tryTransitionWithoutRead(jobId: string, t: Transition): Promise<boolean> {
    return (await this.update(jobId, t, 'NONE')) !== undefined;
  }

  private update(jobId: string, t: Transition, returnValues: 'ALL_NEW' | 'UPDATED_NEW' | 'NONE') {
    const names: Record<string, string> = {};
    const values: Record<string, string | number> = {};
    const name = (attr: string) => {
      const token = `#${attr}`;
      names[token] = attr;
      return token;
    };
    let n = 0;
    const value = (v: string | number) => {
      const token = `:v${n++}`;
      values[token] = v;
      return token;
    };

    const conditions = [`${name('status')} = ${value(t.expect.status)}`];
    const expect = t.expect;
    if (expect.claimed_by === null) conditions.push(`attribute_not_exists(${name('claimed_by')})`);
    else if (expect.claimed_by !== undefined)
      conditions.push(`${name('claimed_by')} = ${value(expect.claimed_by)}`);
    if (expect.attempts !== undefined) conditions.push(`${name('attempts')} = ${value(expect.attempts)}`);
    if (expect.lease_expires_at !== undefined)
      conditions.push(`${name('lease_expires_at')} = ${value(expect.lease_expires_at)}`);
    if (expect.k8s_uid !== undefined) conditions.push(`${name('k8s_uid')} = ${value(expect.k8s_uid)}`);

    const sets = [`${name('updated_at')} = ${value(new Date(t.now).toISOString())}`];
    const removes: string[] = [];
    for (const [attr, v] of Object.entries(t.set)) {
      if (v === null) removes.push(name(attr));
      else sets.push(`${name(attr)} = ${value(v)}`);
    }
    if (t.incrementAttempts) sets.push(`${name('attempts')} = ${name('attempts')} + ${value(1)}`);
    const update = `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`;

    return unlessConditionFailed(
      this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: jobId },
          UpdateExpression: update,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: returnValues,
        }),
      ),
    );
  }

  // ---- idempotency records ----------------------------------------------------------------------------

  /** Claims an Idempotency-Key; false when a live record holds it (an expired one is overwritten). */
  async putIdempotencyRecord(record: IdempotencyRecord, nowSeconds: number): Promise<boolean> {
    const written = await unlessConditionFailed(
      this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            pk: `${IDEMPOTENCY_PREFIX}${record.key}`,
            idempotency_key: record.key,
            request_hash: record.request_hash,
            job_id: record.job_id,
            created_at: record.created_at,
            expires_at: record.expires_at,
          },
          // TTL deletion lags expiry by up to days: an expired record must not block the key meanwhile.
          ConditionExpression: 'attribute_not_exists(pk) OR expires_at < :now',
          ExpressionAttributeValues: { ':now': nowSeconds },
        }),
      ),
    );
    return written !== undefined;
  }

  /**
   * Gives a key back after its job could not be written: deletes the record only while it still binds
   * the key to that job and body (a concurrent replay may have written the job meanwhile; then the
   * record and the job both stay).
   */
  async releaseIdempotencyRecord(key: string, jobId: string, requestHash: string): Promise<void> {
    if (await this.getJob(jobId)) return;
    await unlessConditionFailed(
      this.doc.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { pk: `${IDEMPOTENCY_PREFIX}${key}` },
          ConditionExpression: 'job_id = :job AND request_hash = :hash',
          ExpressionAttributeValues: { ':job': jobId, ':hash': requestHash },
        }),
      ),
    );
  }

  async getIdempotencyRecord(key: string): Promise<IdempotencyRecord | undefined> {
    const out = await this.doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { pk: `${IDEMPOTENCY_PREFIX}${key}` },
        ConsistentRead: true,
      }),
    );
    if (!out.Item) return undefined;
    const requestHash = stringAttribute(out.Item, 'request_hash');
    const jobId = stringAttribute(out.Item, 'job_id');
    const createdAt = stringAttribute(out.Item, 'created_at');
    if (!requestHash || !jobId || !createdAt) return undefined;
    return {
      key,
      request_hash: requestHash,
      job_id: jobId,
      created_at: createdAt,
      expires_at: numberAttribute(out.Item, 'expires_at') ?? 0,
    };
  }

  // ---- worker queries --------------------------------------------------------------------------------

  /** One page of the region's queue in dispatch order, skipping jobs whose next check is in the future. */
  async dispatchable(
    region: string,
    now: number,
    pageSize: number,
    startKey?: Key,
  ): Promise<{ jobs: QueuedJob[]; nextKey: Key | undefined }> {
    const out = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: 'dispatch-index',
        KeyConditionExpression: 'dispatch_region = :r',
        FilterExpression: 'attribute_not_exists(next_check_at) OR next_check_at <= :now',
        ExpressionAttributeValues: { ':r': region, ':now': now },
        ScanIndexForward: true,
        Limit: pageSize,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    return { jobs: this.jobsOf(out.Items), nextKey: out.LastEvaluatedKey };
  }

  /**
   * The region's backlog for the QueueDepth / OldestQueuedJobAgeSeconds metrics: every job in its
   * dispatch-index partition (queued, including spot-gated and retry-delayed ones), and the earliest
   * created_at among them. One paginated Query projecting only the sort key, which carries created_at
   * ("<inverted priority>#<created>#<id>"): the oldest job is not at the head when priorities differ,
   * and a COUNT query reads (and is billed for) exactly the same items without telling their age.
   */
  async backlog(
    region: string,
    pageSize?: number,
  ): Promise<{ depth: number; oldestCreatedAt: string | undefined }> {
    let depth = 0;
    let oldest: string | undefined;
    const pages = paginateQuery(
      { client: this.doc },
      {
        TableName: this.tableName,
        IndexName: 'dispatch-index',
        KeyConditionExpression: 'dispatch_region = :r',
        ProjectionExpression: 'dispatch_order',
        ExpressionAttributeValues: { ':r': region },
        // Unset: DynamoDB's 1 MB pages. Tests set it to cross page boundaries with few jobs.
        ...(pageSize ? { Limit: pageSize } : {}),
      },
    );
    for await (const page of pages) {
      for (const item of page.Items ?? []) {
        depth++;
        const created = stringAttribute(item, 'dispatch_order')?.split('#')[1];
        if (created && (oldest === undefined || created < oldest)) oldest = created;
      }
    }
    return { depth, oldestCreatedAt: oldest };
  }

  /** Claims of the region whose lease ran out before `now`. */
  async expiredClaims(region: string, now: number, limit: number): Promise<QueuedJob[]> {
    return this.queryAll(
      {
        TableName: this.tableName,
        IndexName: 'lease-index',
        KeyConditionExpression: 'lease_region = :r AND lease_expires_at < :now',
        FilterExpression: '#s = :claimed',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':r': region, ':now': now, ':claimed': 'claimed' },
      },
      limit,
    );
  }

  /** Jobs dispatched to the region's cluster and not finished yet (their status is synced from there). */
  async activeJobs(region: string, limit: number): Promise<QueuedJob[]> {
    return this.queryAll(
      {
        TableName: this.tableName,
        IndexName: 'lease-index',
        KeyConditionExpression: 'lease_region = :r',
        ExpressionAttributeValues: { ':r': syncPartition(region) },
      },
      limit,
    );
  }

  // ---- listing and statistics ------------------------------------------------------------------------

  /** Newest first, by region (region-created-index) or overall (all-created-index). */
  async list(filter: ListFilter): Promise<ListPage> {
    const byRegion = filter.targetRegion !== undefined;
    const names: Record<string, string> = {};
    const values: Record<string, string> = {};
    let keyCondition: string;
    if (byRegion) {
      keyCondition = 'target_region = :pk';
      values[':pk'] = filter.targetRegion ?? '';
    } else {
      keyCondition = 'record_type = :pk';
      values[':pk'] = RECORD_TYPE_JOB;
    }
    const filters: string[] = [];
    if (filter.status) {
      names['#s'] = 'status';
      values[':status'] = filter.status;
      filters.push('#s = :status');
    }
    if (filter.namespace) {
      names['#ns'] = 'namespace';
      values[':ns'] = filter.namespace;
      filters.push('#ns = :ns');
    }
    const keyOf = (job: QueuedJob): Key => ({
      pk: job.job_id,
      created_at: job.created_at,
      ...(byRegion ? { target_region: job.target_region } : { record_type: RECORD_TYPE_JOB }),
    });

    const jobs: QueuedJob[] = [];
    let startKey = filter.startKey;
    for (let round = 0; round < MAX_LIST_ROUNDS; round++) {
      const wanted = filter.limit - jobs.length;
      const out = await this.doc.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: byRegion ? 'region-created-index' : 'all-created-index',
          KeyConditionExpression: keyCondition,
          ...(filters.length > 0 ? { FilterExpression: filters.join(' AND ') } : {}),
          ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
          ExpressionAttributeValues: values,
          ScanIndexForward: false,
          // Read ahead when filtering: Limit counts items read, not items matched.
          Limit: filters.length > 0 ? Math.min(1000, Math.max(wanted * 2, 100)) : wanted,
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
      );
      const page = this.jobsOf(out.Items);
      if (page.length > wanted) {
        // The page holds more matches than fit: continue after the last one returned.
        const taken = page.slice(0, wanted);
        jobs.push(...taken);
        return { jobs, nextKey: keyOf(taken[taken.length - 1]!) };
      }
      jobs.push(...page);
      startKey = out.LastEvaluatedKey;
      if (!startKey) return { jobs, nextKey: undefined };
      if (jobs.length === filter.limit) return { jobs, nextKey: startKey };
    }
    return { jobs, nextKey: startKey };
  }

  /** Counts by region and status over every job (all-created-index, two attributes projected). */
  async stats(): Promise<QueueStats> {
    const byStatus = emptyCounts();
    const byRegion: Record<string, StatusCounts> = {};
    const items = await queryItems(this.doc, {
      TableName: this.tableName,
      IndexName: 'all-created-index',
      KeyConditionExpression: 'record_type = :job',
      ProjectionExpression: '#s, target_region',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':job': RECORD_TYPE_JOB },
    });
    for (const item of items) {
      const status = stringAttribute(item, 'status');
      const region = stringAttribute(item, 'target_region');
      if (!isQueueStatus(status) || !region) continue;
      const counts = (byRegion[region] ??= emptyCounts());
      counts[status]++;
      counts.total++;
      byStatus[status]++;
      byStatus.total++;
    }
    return { total: byStatus.total, by_status: byStatus, by_region: byRegion };
  }

  // ---- helpers -----------------------------------------------------------------------------------------

  private jobsOf(items: StoredItem[] | undefined): QueuedJob[] {
    return (items ?? []).map(itemToJob).filter((j): j is QueuedJob => j !== undefined);
  }

  private async queryAll(input: QueryCommandInput, limit: number): Promise<QueuedJob[]> {
    const items = await queryItems(this.doc, input, { limit, maxPages: MAX_QUERY_PAGES });
    return this.jobsOf(items);
  }
}

// ---- the transitions of docs/queue.md ------------------------------------------------------------------

/** Attributes that put a job back into dispatch-index (queued again, same place in line). */
export function queuedAttributes(job: QueuedJob): Record<string, AttributeUpdate> {
  return {
    status: 'queued',
    dispatch_region: job.target_region,
    dispatch_order: dispatchOrder(job),
    claimed_by: null,
    lease_region: null,
    lease_expires_at: null,
  };
}

/** Attributes of a finished job: out of every work index, deleted by TTL after the retention period. */
export function finishedAttributes(
  status: 'succeeded' | 'failed' | 'cancelled',
  now: number,
  retentionDays: number,
): Record<string, AttributeUpdate> {
  return {
    status,
    finished_at: new Date(now).toISOString(),
    expires_at: Math.floor(now / 1000) + retentionDays * 86_400,
    dispatch_region: null,
    dispatch_order: null,
    lease_region: null,
    lease_expires_at: null,
    next_check_at: null,
  };
}

/** Expectation that matches exactly one claim (a later claim of the same job has another attempt). */
export function claimOf(job: QueuedJob): Expectation {
  return { status: 'claimed', claimed_by: job.claimed_by ?? '', attempts: job.attempts };
}

export function dispatchedAttributes(
  ref: K8sRef,
  region: string,
  now: number,
): Record<string, AttributeUpdate> {
  return {
    status: 'dispatched',
    k8s_namespace: ref.namespace,
    k8s_name: ref.name,
    k8s_uid: ref.uid,
    dispatched_at: new Date(now).toISOString(),
    // The region's workers now hold the job for status sync (lease-index partition sync#<region>).
    lease_region: syncPartition(region),
    lease_expires_at: now,
    error: null,
    waiting_reason: null,
    next_check_at: null,
  };
}

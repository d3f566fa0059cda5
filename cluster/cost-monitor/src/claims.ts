/**
 * Exactly-once claims of scheduled report windows in the regional cost-reports table (TABLES.costReports).
 *
 * One item per (region, window), pk `report_key`. A replica writes a window's report only after a
 * conditional Put succeeds: the item must be absent, or a claim whose lease (`expires_at`, epoch seconds)
 * has passed — so a winner that crashed before writing S3 loses the window only for one lease. The winner
 * marks the item `written` with a long `expires_at` (DynamoDB TTL then removes it after the retention).
 * Checking the lease in the condition (not relying on TTL deletion, which can lag for days) keeps takeover
 * timely.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { TABLES } from '../../../contracts/tables.js';
import { documentClient, stringAttribute, unlessConditionFailed } from '../../shared/dynamo.js';
import { rfc3339 } from './opencost.js';
import type { ReportWindow } from './report.js';

export type ClaimOutcome =
  | { won: true }
  | { won: false; status: 'written' | 'claimed' | 'unknown'; owner: string | undefined; s3Key?: string };

export interface WindowClaimsOptions {
  table: string;
  region: string;
  /** Identifies this replica in the claim (pod name in production). */
  owner: string;
  /** How long a claim blocks other replicas before it may be taken over. */
  leaseSeconds?: number;
  /** How long a `written` record is kept (it only has to outlive the windows a scheduler still looks at). */
  retentionSeconds?: number;
}

const PK = TABLES.costReports.partitionKey.name;
const TTL = TABLES.costReports.ttlAttribute;

export class WindowClaims {
  readonly leaseSeconds: number;
  private readonly retentionSeconds: number;
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    dynamo: DynamoDBClient,
    private readonly opts: WindowClaimsOptions,
  ) {
    this.doc = documentClient(dynamo);
    this.leaseSeconds = opts.leaseSeconds ?? 300;
    this.retentionSeconds = opts.retentionSeconds ?? 7 * 86_400;
  }

  /** `scheduled#<region>#<start>#<end>`: the table is regional, the region keeps keys unambiguous anyway. */
  reportKey(window: ReportWindow): string {
    return `scheduled#${this.opts.region}#${rfc3339(window.start)}#${rfc3339(window.end)}`;
  }

  async claim(window: ReportWindow, now: Date): Promise<ClaimOutcome> {
    const nowSeconds = Math.floor(now.getTime() / 1000);
    const claimed = await unlessConditionFailed(
      this.doc.send(
        new PutCommand({
          TableName: this.opts.table,
          Item: {
            [PK]: this.reportKey(window),
            status: 'claimed',
            owner: this.opts.owner,
            region: this.opts.region,
            window_start: rfc3339(window.start),
            window_end: rfc3339(window.end),
            claimed_at: now.toISOString(),
            [TTL]: nowSeconds + this.leaseSeconds,
          },
          ConditionExpression: `attribute_not_exists(#pk) OR (#status = :claimed AND #ttl < :now)`,
          ExpressionAttributeNames: { '#pk': PK, '#status': 'status', '#ttl': TTL },
          ExpressionAttributeValues: { ':claimed': 'claimed', ':now': nowSeconds },
        }),
      ),
    );
    if (claimed) return { won: true };
    const current = await this.doc.send(
      new GetCommand({
        TableName: this.opts.table,
        Key: { [PK]: this.reportKey(window) },
        ConsistentRead: true,
      }),
    );
    const item = current.Item ?? {};
    const status = stringAttribute(item, 'status');
    const s3Key = stringAttribute(item, 's3_key');
    return {
      won: false,
      status: status === 'written' || status === 'claimed' ? status : 'unknown',
      owner: stringAttribute(item, 'owner') ?? undefined,
      ...(s3Key ? { s3Key } : {}),
    };
  }

  /** Marks the window written. False when another replica took the claim over meanwhile (harmless: same key). */
  async complete(window: ReportWindow, s3Key: string, now: Date): Promise<boolean> {
    const written = await unlessConditionFailed(
      this.doc.send(
        new UpdateCommand({
          TableName: this.opts.table,
          Key: { [PK]: this.reportKey(window) },
          UpdateExpression: 'SET #status = :written, s3_key = :key, written_at = :at, #ttl = :ttl',
          ConditionExpression: '#owner = :me',
          ExpressionAttributeNames: { '#status': 'status', '#ttl': TTL, '#owner': 'owner' },
          ExpressionAttributeValues: {
            ':written': 'written',
            ':key': s3Key,
            ':at': now.toISOString(),
            ':ttl': Math.floor(now.getTime() / 1000) + this.retentionSeconds,
            ':me': this.opts.owner,
          },
        }),
      ),
    );
    return written !== undefined;
  }

  /** Gives a claim back after a failed attempt so the window can be retried without waiting for the lease. */
  async release(window: ReportWindow): Promise<void> {
    // Not ours (any more) or gone: nothing to give back.
    await unlessConditionFailed(
      this.doc.send(
        new DeleteCommand({
          TableName: this.opts.table,
          Key: { [PK]: this.reportKey(window) },
          ConditionExpression: '#owner = :me AND #status = :claimed',
          ExpressionAttributeNames: { '#owner': 'owner', '#status': 'status' },
          ExpressionAttributeValues: { ':me': this.opts.owner, ':claimed': 'claimed' },
        }),
      ),
    );
  }
}

/**
 * The authorizations table (pk ApplicationId, sk ApiKeyId; GSI key-hash-index on ApiKeyHash). An item
 * holds the key's SHA-256 (ApiKeyHash) and a masked display value, never the key itself.
 */
import { PlatformError } from '../../../contracts/runtime/errors.js';
import {
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type BatchWriteCommandInput,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { ANALYTICS_TABLES } from '../../../contracts/analytics-resources.js';
import { backoffDelayMs, sleep, type BackoffPolicy } from '../../../contracts/runtime/backoff.js';
import { isConditionalCheckFailure } from './dynamo-errors.js';
import { pagesOf } from './dynamo-pages.js';

const KEY_HASH_INDEX = ANALYTICS_TABLES.authorizations.indexes[0].indexName;

export interface ApiKeyItem {
  readonly ApplicationId: string;
  readonly ApiKeyId: string;
  readonly ApiKeyHash: string;
  /** Masked display value (`gak_AbCd…WxYz`). */
  readonly ApiKeyMasked: string;
  readonly ApiKeyName: string;
  readonly ApiKeyDescription: string;
  readonly CreatedAt: string;
  readonly UpdatedAt: string;
  readonly Enabled: boolean;
}

export interface KeyRef {
  readonly ApplicationId: string;
  readonly ApiKeyId: string;
}

/** BatchWriteItem takes at most 25 requests. */
const BATCH_WRITE_MAX = 25;

export interface ApiKeyStoreOptions {
  /** Waits between retries of UnprocessedItems. */
  readonly backoff?: BackoffPolicy;
  /** Attempts per batch before giving up (the caller answers 500; a retry of the delete resumes). */
  readonly maxBatchAttempts?: number;
}

class UnprocessedItemsError extends PlatformError {
  override readonly name = 'UnprocessedItemsError';
}

export class ApiKeyStore {
  private readonly backoff: BackoffPolicy;
  private readonly maxBatchAttempts: number;

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    options: ApiKeyStoreOptions = {},
  ) {
    this.backoff = options.backoff ?? { baseMs: 50, capMs: 1_000 };
    this.maxBatchAttempts = options.maxBatchAttempts ?? 8;
  }

  async create(item: ApiKeyItem): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: item,
        ConditionExpression: 'attribute_not_exists(ApiKeyId)',
      }),
    );
  }

  async get(applicationId: string, apiKeyId: string): Promise<ApiKeyItem | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { ApplicationId: applicationId, ApiKeyId: apiKeyId },
        ConsistentRead: true,
      }),
    );
    return Item as ApiKeyItem | undefined;
  }

  /** Every key of an application (all Query pages), oldest first. */
  async list(applicationId: string): Promise<ApiKeyItem[]> {
    const items: ApiKeyItem[] = [];
    for await (const page of this.keysOf<ApiKeyItem>(applicationId)) items.push(...page);
    return items.sort(
      (a, b) => a.CreatedAt.localeCompare(b.CreatedAt) || a.ApiKeyId.localeCompare(b.ApiKeyId),
    );
  }

  /** Sets Enabled; false when the key does not exist (under this application). */
  async setEnabled(
    applicationId: string,
    apiKeyId: string,
    enabled: boolean,
    updatedAt: string,
  ): Promise<boolean> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { ApplicationId: applicationId, ApiKeyId: apiKeyId },
          UpdateExpression: 'SET Enabled = :e, UpdatedAt = :u',
          ConditionExpression: 'attribute_exists(ApiKeyId)',
          ExpressionAttributeValues: { ':e': enabled, ':u': updatedAt },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw error;
    }
  }

  /** Deletes one key; false when it did not exist. */
  async delete(applicationId: string, apiKeyId: string): Promise<boolean> {
    try {
      await this.doc.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { ApplicationId: applicationId, ApiKeyId: apiKeyId },
          ConditionExpression: 'attribute_exists(ApiKeyId)',
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw error;
    }
  }

  /**
   * Keys whose hash matches. The index is eventually consistent, so callers confirm with a consistent
   * `get` of the base item before trusting Enabled.
   */
  async findByHash(apiKeyHash: string): Promise<KeyRef[]> {
    const { Items } = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: KEY_HASH_INDEX,
        KeyConditionExpression: 'ApiKeyHash = :h',
        ExpressionAttributeValues: { ':h': apiKeyHash },
        ProjectionExpression: 'ApplicationId, ApiKeyId',
      }),
    );
    return (Items ?? []) as KeyRef[];
  }

  /**
   * Waits until the key-hash index shows the key, so a key handed to a client authorizes on its first
   * use: a miss there is a 401 that API Gateway caches for the authorizer TTL. GSIs usually catch up in
   * well under a second; true when the key became visible within `timeoutMs`.
   */
  async awaitIndexed(apiKeyHash: string, apiKeyId: string, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (let attempt = 0; ; attempt++) {
      if ((await this.findByHash(apiKeyHash)).some((k) => k.ApiKeyId === apiKeyId)) return true;
      const remaining = deadline - Date.now();
      if (remaining <= 0) return false;
      await sleep(Math.min(remaining, Math.max(10, backoffDelayMs(attempt, this.backoff))));
    }
  }

  /**
   * Deletes every key of an application: keys-only Query pages, BatchWriteItem in 25s, UnprocessedItems
   * retried with backoff. Returns how many keys were deleted.
   */
  async deleteAll(applicationId: string): Promise<number> {
    let deleted = 0;
    for await (const keys of this.keysOf<KeyRef>(applicationId, 'ApplicationId, ApiKeyId')) {
      for (let i = 0; i < keys.length; i += BATCH_WRITE_MAX) {
        await this.batchDelete(keys.slice(i, i + BATCH_WRITE_MAX));
      }
      deleted += keys.length;
    }
    return deleted;
  }

  /** The application's keys (consistent Query pages), whole items or just `projection`. */
  private keysOf<T>(applicationId: string, projection?: string): AsyncGenerator<T[]> {
    return pagesOf<T>((startKey) =>
      this.doc.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'ApplicationId = :a',
          ExpressionAttributeValues: { ':a': applicationId },
          ...(projection !== undefined ? { ProjectionExpression: projection } : {}),
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      ),
    );
  }

  private async batchDelete(keys: readonly KeyRef[]): Promise<void> {
    type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];
    let pending: WriteRequest[] = keys.map((k) => ({
      DeleteRequest: { Key: { ApplicationId: k.ApplicationId, ApiKeyId: k.ApiKeyId } },
    }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt >= this.maxBatchAttempts) {
        throw new UnprocessedItemsError(
          `${pending.length} key deletions still unprocessed after ${this.maxBatchAttempts} attempts`,
        );
      }
      if (attempt > 0) await sleep(backoffDelayMs(attempt, this.backoff));
      const out = await this.doc.send(new BatchWriteCommand({ RequestItems: { [this.tableName]: pending } }));
      pending = out.UnprocessedItems?.[this.tableName] ?? [];
    }
  }
}

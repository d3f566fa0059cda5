/**
 * The reconciler's side of the central inference-endpoints table: it reads every record and writes only
 * `regions.<its region>`. Each write is conditional, so replicas and regions never undo one another:
 * - a status write needs the record to exist (a removed record is never resurrected) and never moves
 *   `observed_generation` backwards (a replica that lost its lease cannot overwrite a newer status);
 * - the record is removed only while it is deleting, at the generation read, and every listed region
 *   reports `deleted` (two regions finishing at once: one removal succeeds, the other's condition fails).
 */
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { EndpointRecord, EndpointRegionStatus } from '../../../../contracts/inference-endpoints.js';
import { scanItems, TableStore, unlessConditionFailed, type StoredItem } from '../../../shared/dynamo.js';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A stored item as a record, or undefined when it lacks what the reconciler needs (it is skipped). */
function recordOf(item: StoredItem): EndpointRecord | undefined {
  const spec = item.spec;
  if (typeof item.endpoint_name !== 'string' || typeof item.generation !== 'number' || !isObject(spec)) {
    return undefined;
  }
  if (typeof spec.image !== 'string' || !Array.isArray(spec.regions)) return undefined;
  return {
    ...(item as unknown as EndpointRecord),
    spec: {
      ...(spec as unknown as EndpointRecord['spec']),
      env: isObject(spec.env) ? (spec.env as Record<string, string>) : {},
      resources: isObject(spec.resources) ? spec.resources : {},
      canary: isObject(spec.canary) ? (spec.canary as unknown as EndpointRecord['spec']['canary']) : null,
      stopped: spec.stopped === true,
    },
    regions: isObject(item.regions) ? (item.regions as EndpointRecord['regions']) : {},
  };
}

export class EndpointRecordStore extends TableStore {
  /** Every record (a full scan: endpoints are few, and every region needs every record it is listed in). */
  async list(): Promise<{ records: EndpointRecord[]; malformed: string[] }> {
    const items = await scanItems(this.doc, { TableName: this.tableName, ConsistentRead: true });
    const records: EndpointRecord[] = [];
    const malformed: string[] = [];
    for (const item of items) {
      const record = recordOf(item);
      if (record) records.push(record);
      else malformed.push(String(item.endpoint_name));
    }
    return { records, malformed };
  }

  /**
   * Writes this region's status; false when the record is gone or already holds a newer generation's
   * status. A record stored without a `regions` map gets one (a nested path cannot be set inside a map
   * that does not exist: DynamoDB answers ValidationException).
   */
  async writeRegionStatus(name: string, region: string, status: EndpointRegionStatus): Promise<boolean> {
    const key = { TableName: this.tableName, Key: { endpoint_name: name } };
    try {
      const out = await unlessConditionFailed(
        this.doc.send(
          new UpdateCommand({
            ...key,
            UpdateExpression: 'SET #regions.#r = :s',
            ConditionExpression:
              'attribute_exists(endpoint_name) AND (attribute_not_exists(#regions.#r) OR #regions.#r.observed_generation <= :g)',
            ExpressionAttributeNames: { '#regions': 'regions', '#r': region },
            ExpressionAttributeValues: { ':s': status, ':g': status.observed_generation },
          }),
        ),
      );
      return out !== undefined;
    } catch (error) {
      if ((error as { name?: unknown }).name !== 'ValidationException') throw error;
    }
    const out = await unlessConditionFailed(
      this.doc.send(
        new UpdateCommand({
          ...key,
          UpdateExpression: 'SET #regions = :m',
          ConditionExpression: 'attribute_exists(endpoint_name) AND attribute_not_exists(#regions)',
          ExpressionAttributeNames: { '#regions': 'regions' },
          ExpressionAttributeValues: { ':m': { [region]: status } },
        }),
      ),
    );
    return out !== undefined;
  }

  /** Drops this region's status from a record that no longer lists the region. */
  async removeRegionStatus(name: string, region: string, generation: number): Promise<boolean> {
    const out = await unlessConditionFailed(
      this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { endpoint_name: name },
          UpdateExpression: 'REMOVE #regions.#r',
          ConditionExpression: 'attribute_exists(endpoint_name) AND generation = :g',
          ExpressionAttributeNames: { '#regions': 'regions', '#r': region },
          ExpressionAttributeValues: { ':g': generation },
        }),
      ),
    );
    return out !== undefined;
  }

  /** Removes a deleting record once every listed region reports `deleted`; false when not (yet). */
  async removeDeleted(record: EndpointRecord): Promise<boolean> {
    const names: Record<string, string> = { '#regions': 'regions', '#state': 'state' };
    const regionChecks = record.spec.regions.map((region, i) => {
      names[`#r${i}`] = region;
      return `#regions.#r${i}.#state = :deleted`;
    });
    const out = await unlessConditionFailed(
      this.doc.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { endpoint_name: record.endpoint_name },
          ConditionExpression: ['deleting = :true', 'generation = :g', ...regionChecks].join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: {
            ':true': true,
            ':g': record.generation,
            ...(regionChecks.length > 0 ? { ':deleted': 'deleted' } : {}),
          },
        }),
      ),
    );
    return out !== undefined;
  }
}

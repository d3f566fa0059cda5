/**
 * The central inference endpoint store (TABLES.inferenceEndpoints, pk `endpoint_name`). The API writes
 * `spec`, `generation`, `deleting` and the routing fields; it never writes `regions.*` (each region's
 * reconciler owns its entry) except to create the record with an empty map. Every spec change is one
 * UpdateItem conditioned on the generation it was computed from, so two writers cannot lose one another's
 * change: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.ConditionExpressions.html
 */
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { EndpointSpec } from '../../../../contracts/inference-endpoints.js';
import {
  isConditionalCheckFailed,
  itemSizeBytes,
  MAX_ITEM_BYTES,
  scanItems,
  TableStore,
  type StoredItem,
} from '../../../shared/dynamo.js';
import { HttpError } from '../../../shared/errors.js';
import { endpointOf, type StoredEndpoint } from './record.js';
import type { RoutingFields } from './spec.js';

function unavailable(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  return new HttpError(503, 'Inference endpoint store unavailable');
}

/** A new desired state: what one change writes. */
export interface EndpointChange {
  spec: EndpointSpec;
  routing: RoutingFields;
  deleting: boolean;
  updatedAt: string;
}

/** The attributes a change writes: never `regions`, which the reconcilers own. */
const WRITTEN = [
  'spec',
  'generation',
  'deleting',
  'updated_at',
  'service',
  'port',
  'canary',
  'serving_paths',
  'health_path',
] as const;

export class InferenceEndpointStore extends TableStore {
  /** Writes a new record unless the name exists; false when it does (conditional put). */
  async create(item: StoredItem): Promise<boolean> {
    const size = itemSizeBytes(item);
    if (size > MAX_ITEM_BYTES) {
      throw new HttpError(413, `Endpoint record too large (${size} bytes; limit ${MAX_ITEM_BYTES})`);
    }
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: item,
          ConditionExpression: 'attribute_not_exists(endpoint_name)',
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw unavailable(error);
    }
  }

  async get(name: string): Promise<StoredEndpoint | undefined> {
    try {
      const out = await this.doc.send(
        new GetCommand({ TableName: this.tableName, Key: { endpoint_name: name }, ConsistentRead: true }),
      );
      return out.Item ? endpointOf(out.Item) : undefined;
    } catch (error) {
      throw unavailable(error);
    }
  }

  /** Every endpoint, sorted by name. */
  async list(): Promise<StoredEndpoint[]> {
    let endpoints: StoredEndpoint[];
    try {
      endpoints = (await scanItems(this.doc, { TableName: this.tableName, ConsistentRead: true })).map(
        endpointOf,
      );
    } catch (error) {
      throw unavailable(error);
    }
    return endpoints.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /**
   * Writes `change` as generation `fromGeneration + 1` only while the record is still at
   * `fromGeneration`; the updated record, or undefined when another writer got there first (or the
   * record is gone). `regions` is left as it is.
   */
  async update(
    name: string,
    fromGeneration: number,
    change: EndpointChange,
  ): Promise<StoredEndpoint | undefined> {
    const size = itemSizeBytes({ spec: change.spec, ...change.routing });
    if (size > MAX_ITEM_BYTES) {
      throw new HttpError(413, `Endpoint record too large (${size} bytes; limit ${MAX_ITEM_BYTES})`);
    }
    try {
      const out = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { endpoint_name: name },
          // Every name through a placeholder: DynamoDB reserves many plain words (PORT among them).
          UpdateExpression: `SET ${WRITTEN.map((f) => `#${f} = :${f}`).join(', ')}`,
          ConditionExpression: 'attribute_exists(#endpoint_name) AND #generation = :from',
          ExpressionAttributeNames: Object.fromEntries(
            [...WRITTEN, 'endpoint_name'].map((f) => [`#${f}`, f]),
          ),
          ExpressionAttributeValues: {
            ':spec': change.spec,
            ':generation': fromGeneration + 1,
            ':from': fromGeneration,
            ':deleting': change.deleting,
            ':updated_at': change.updatedAt,
            ':service': change.routing.service,
            ':port': change.routing.port,
            ':canary': change.routing.canary ?? null,
            ':serving_paths': change.routing.serving_paths,
            ':health_path': change.routing.health_path,
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return out.Attributes ? endpointOf(out.Attributes) : undefined;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return undefined;
      throw unavailable(error);
    }
  }
}

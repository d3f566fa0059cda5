/**
 * Job templates in DynamoDB (lib/tables.ts TABLES.jobTemplates, pk `name`). The manifest and the default
 * parameters are stored as JSON text: numbers keep their exact JSON form and DynamoDB's attribute rules
 * (no empty sets, number precision) never reshape a manifest.
 */
import {
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  ScanCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { HttpError } from '../../../shared/errors.js';

export interface StoredTemplate {
  name: string;
  description: string | null;
  manifest: Record<string, unknown>;
  parameters: Record<string, unknown> | null;
  created_at: string;
  updated_at: string;
}

/** DynamoDB items are capped at 400 KB; stay clear of it so the store never answers a raw SDK error. */
export const MAX_TEMPLATE_BYTES = 350 * 1024;

function isConditionFailure(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

function unavailable(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  return new HttpError(503, 'Template store unavailable');
}

function text(item: Record<string, AttributeValue>, key: string): string | null {
  return item[key]?.S ?? null;
}

function parseObject(raw: string | null): Record<string, unknown> | null {
  if (raw === null) return null;
  const value: unknown = JSON.parse(raw);
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

function fromItem(item: Record<string, AttributeValue>): StoredTemplate {
  return {
    name: text(item, 'name') ?? '',
    description: text(item, 'description'),
    manifest: parseObject(text(item, 'manifest')) ?? {},
    parameters: parseObject(text(item, 'parameters')),
    created_at: text(item, 'created_at') ?? '',
    updated_at: text(item, 'updated_at') ?? '',
  };
}

export class TemplateStore {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
  ) {}

  /** Creates the template; 409 when the name is taken (conditional put, so concurrent creates race safely). */
  async create(input: {
    name: string;
    description: string | null;
    manifest: Record<string, unknown>;
    parameters: Record<string, unknown> | null;
    now?: Date;
  }): Promise<StoredTemplate> {
    const at = (input.now ?? new Date()).toISOString();
    const manifest = JSON.stringify(input.manifest);
    const parameters = input.parameters === null ? null : JSON.stringify(input.parameters);
    const size =
      Buffer.byteLength(manifest) +
      Buffer.byteLength(parameters ?? '') +
      Buffer.byteLength(input.description ?? '');
    if (size > MAX_TEMPLATE_BYTES) {
      throw new HttpError(413, `Template too large (${size} bytes; limit ${MAX_TEMPLATE_BYTES})`);
    }
    const item: Record<string, AttributeValue> = {
      name: { S: input.name },
      manifest: { S: manifest },
      created_at: { S: at },
      updated_at: { S: at },
      ...(parameters === null ? {} : { parameters: { S: parameters } }),
      ...(input.description === null ? {} : { description: { S: input.description } }),
    };
    try {
      await this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: item,
          ConditionExpression: 'attribute_not_exists(#name)',
          ExpressionAttributeNames: { '#name': 'name' },
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) throw new HttpError(409, `Template ${input.name} already exists`);
      throw unavailable(error);
    }
    return fromItem(item);
  }

  async get(name: string): Promise<StoredTemplate | undefined> {
    try {
      const out = await this.client.send(
        new GetItemCommand({ TableName: this.tableName, Key: { name: { S: name } }, ConsistentRead: true }),
      );
      return out.Item ? fromItem(out.Item) : undefined;
    } catch (error) {
      throw unavailable(error);
    }
  }

  /** Every template, sorted by name. */
  async list(): Promise<StoredTemplate[]> {
    const items: StoredTemplate[] = [];
    let start: Record<string, AttributeValue> | undefined;
    try {
      do {
        const page = await this.client.send(
          new ScanCommand({ TableName: this.tableName, ExclusiveStartKey: start }),
        );
        for (const item of page.Items ?? []) items.push(fromItem(item));
        start = page.LastEvaluatedKey;
      } while (start);
    } catch (error) {
      throw unavailable(error);
    }
    return items.sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Deletes the template; false when there was none. */
  async delete(name: string): Promise<boolean> {
    try {
      await this.client.send(
        new DeleteItemCommand({
          TableName: this.tableName,
          Key: { name: { S: name } },
          ConditionExpression: 'attribute_exists(#name)',
          ExpressionAttributeNames: { '#name': 'name' },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw unavailable(error);
    }
  }
}

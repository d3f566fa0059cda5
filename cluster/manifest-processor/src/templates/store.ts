/**
 * Job templates in DynamoDB (contracts/tables.ts TABLES.jobTemplates, pk `name`). The manifest and the default
 * parameters are stored as JSON text: numbers keep their exact JSON form and DynamoDB's attribute rules
 * (no empty sets, number precision) never reshape a manifest.
 */
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import {
  isConditionalCheckFailed,
  scanItems,
  stringAttribute,
  TableStore,
  withoutNulls,
  type StoredItem,
} from '../../../shared/dynamo.js';
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
const MAX_TEMPLATE_BYTES = 350 * 1024;

function unavailable(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  return new HttpError(503, 'Template store unavailable');
}

function parseObject(raw: string | null): Record<string, unknown> | null {
  if (raw === null) return null;
  const value: unknown = JSON.parse(raw);
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

function templateOf(item: StoredItem): StoredTemplate {
  return {
    name: stringAttribute(item, 'name') ?? '',
    description: stringAttribute(item, 'description'),
    manifest: parseObject(stringAttribute(item, 'manifest')) ?? {},
    parameters: parseObject(stringAttribute(item, 'parameters')),
    created_at: stringAttribute(item, 'created_at') ?? '',
    updated_at: stringAttribute(item, 'updated_at') ?? '',
  };
}

export class TemplateStore extends TableStore {
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
    const item = withoutNulls({
      name: input.name,
      manifest,
      created_at: at,
      updated_at: at,
      parameters,
      description: input.description,
    });
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: item,
          ConditionExpression: 'attribute_not_exists(#name)',
          ExpressionAttributeNames: { '#name': 'name' },
        }),
      );
    } catch (error) {
      if (isConditionalCheckFailed(error)) throw new HttpError(409, `Template ${input.name} already exists`);
      throw unavailable(error);
    }
    return templateOf(item);
  }

  async get(name: string): Promise<StoredTemplate | undefined> {
    try {
      const out = await this.doc.send(
        new GetCommand({ TableName: this.tableName, Key: { name }, ConsistentRead: true }),
      );
      return out.Item ? templateOf(out.Item) : undefined;
    } catch (error) {
      throw unavailable(error);
    }
  }

  /** Every template, sorted by name. */
  async list(): Promise<StoredTemplate[]> {
    let templates: StoredTemplate[];
    try {
      templates = (await scanItems(this.doc, { TableName: this.tableName })).map(templateOf);
    } catch (error) {
      throw unavailable(error);
    }
    return templates.sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Deletes the template; false when there was none. */
  async delete(name: string): Promise<boolean> {
    try {
      await this.doc.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { name },
          ConditionExpression: 'attribute_exists(#name)',
          ExpressionAttributeNames: { '#name': 'name' },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw unavailable(error);
    }
  }
}

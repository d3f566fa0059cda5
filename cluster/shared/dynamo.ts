/**
 * The DynamoDB layer of the cluster stores (docs/queue.md, docs/webhooks.md, docs/templates.md,
 * docs/cost.md): the lib-dynamodb document client, typed reads of its plain items, the conditional-write
 * check, paging, and opaque list cursors.
 */
import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  paginateQuery,
  paginateScan,
  type QueryCommandInput,
  type ScanCommandInput,
  type TranslateConfig,
} from '@aws-sdk/lib-dynamodb';

/**
 * An item as the document client reads it: attribute names to plain values (strings, numbers, booleans,
 * null, arrays, objects; string and number sets as Sets). Read fields through the functions below.
 */
export type StoredItem = Record<string, unknown>;

/**
 * Chosen so stored items stay as they are: empty strings stay `S ""`, numbers must be exact, class
 * instances are refused, and an undefined value is an error rather than silently dropped ("absent" is
 * written by leaving the field out, see `withoutNulls`). Numbers read as `Number(text)`, as the stores
 * always read them (the SDK's default would turn integers beyond 2^53 into BigInt and refuse large
 * fractions). `DynamoDBDocumentClient.from` keeps these options on the DynamoDBClient's shared config, so
 * give the stores a client no differently configured document client is made from.
 */
const TRANSLATE_CONFIG: TranslateConfig = {
  marshallOptions: {
    convertEmptyValues: false,
    removeUndefinedValues: false,
    convertClassInstanceToMap: false,
    allowImpreciseNumbers: false,
  },
  unmarshallOptions: { wrapNumbers: (text: string) => Number(text) },
};

/** The document client over a low-level client (which its owner keeps and destroys). */
export function documentClient(client: DynamoDBClient): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(client, TRANSLATE_CONFIG);
}

/** A store over one table: the document client over the caller's DynamoDBClient, and the table's name. */
export abstract class TableStore {
  protected readonly doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    readonly tableName: string,
  ) {
    this.doc = documentClient(client);
  }
}

/** Whether a conditional write (or delete) failed its ConditionExpression: the expected "someone else won". */
export function isConditionalCheckFailed(error: unknown): error is ConditionalCheckFailedException {
  return error instanceof ConditionalCheckFailedException;
}

/**
 * The output of a conditional write, or undefined when its condition failed (another writer got there
 * first, which the stores answer with false or a re-read); any other failure is thrown.
 */
export async function unlessConditionFailed<T>(write: Promise<T>): Promise<T | undefined> {
  try {
    return await write;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return undefined;
    throw error;
  }
}

// ---- plain items -----------------------------------------------------------------------------------------

/** A plain object: what a map attribute reads as (sets, binary values and class instances are not). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

function omitNullFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(omitNullFields);
  return isPlainObject(value) ? withoutNulls(value) : value;
}

/**
 * The record with every null field left out, in nested objects too (array elements are kept): the stores
 * write "no value" as an absent attribute, which is also what keeps an item out of a sparse index.
 */
export function withoutNulls(record: Record<string, unknown>): StoredItem {
  const item: StoredItem = {};
  for (const [name, value] of Object.entries(record)) {
    if (value !== null && value !== undefined) item[name] = omitNullFields(value);
  }
  return item;
}

/** DynamoDB's item size limit (400 KB, attribute names included). */
export const MAX_ITEM_BYTES = 400 * 1024;

/**
 * An upper estimate of an item's stored size by DynamoDB's rules (names and strings as UTF-8, a number
 * at most 21 bytes, 3 bytes per map or list plus 1 per element), so a store can refuse an item that
 * cannot be written before it writes anything.
 */
export function itemSizeBytes(item: StoredItem): number {
  const size = (value: unknown): number => {
    if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
    if (typeof value === 'number') return 21;
    if (typeof value === 'boolean' || value === null || value === undefined) return 1;
    if (Array.isArray(value)) return value.reduce<number>((sum, v) => sum + 1 + size(v), 3);
    return Object.entries(value as Record<string, unknown>).reduce(
      (sum, [name, v]) => sum + Buffer.byteLength(name, 'utf8') + 1 + size(v),
      3,
    );
  };
  return Object.entries(item).reduce((sum, [name, v]) => sum + Buffer.byteLength(name, 'utf8') + size(v), 0);
}

/** A string attribute, or null when absent or of another type. */
export function stringAttribute(item: StoredItem, name: string): string | null {
  const value = item[name];
  return typeof value === 'string' ? value : null;
}

/** A number attribute, or null when absent or of another type. */
export function numberAttribute(item: StoredItem, name: string): number | null {
  const value = item[name];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** The value as a map (an object read from an `M` attribute), or null when it is anything else. */
export function asMap(value: unknown): StoredItem | null {
  return isPlainObject(value) ? value : null;
}

/** A map attribute, or null when absent or of another type. */
export function mapAttribute(item: StoredItem, name: string): StoredItem | null {
  return asMap(item[name]);
}

/** A list attribute, or an empty list when absent or of another type. */
export function listAttribute(item: StoredItem, name: string): unknown[] {
  const value = item[name];
  return Array.isArray(value) ? value : [];
}

// ---- paging ----------------------------------------------------------------------------------------------

export interface PageBounds {
  /** Stop once this many items are read (the result holds at most this many). */
  limit?: number;
  /** Stop after this many pages even when more follow. */
  maxPages?: number;
}

async function collect(
  pages: AsyncIterable<{ Items?: StoredItem[] }>,
  bounds: PageBounds,
): Promise<StoredItem[]> {
  const items: StoredItem[] = [];
  let pageCount = 0;
  for await (const page of pages) {
    items.push(...(page.Items ?? []));
    pageCount += 1;
    if (items.length >= (bounds.limit ?? Infinity) || pageCount >= (bounds.maxPages ?? Infinity)) break;
  }
  return bounds.limit === undefined ? items : items.slice(0, bounds.limit);
}

/** The items of a Query, following LastEvaluatedKey until the end or the bounds. */
export function queryItems(
  doc: DynamoDBDocumentClient,
  input: QueryCommandInput,
  bounds: PageBounds = {},
): Promise<StoredItem[]> {
  // The paginator writes ExclusiveStartKey into its input: give it a copy.
  return collect(paginateQuery({ client: doc }, { ...input }), bounds);
}

/** The items of a Scan, following LastEvaluatedKey to the end. */
export function scanItems(doc: DynamoDBDocumentClient, input: ScanCommandInput): Promise<StoredItem[]> {
  return collect(paginateScan({ client: doc }, { ...input }), {});
}

// ---- list cursors ----------------------------------------------------------------------------------------

/** An opaque list cursor: base64url of the JSON position (a LastEvaluatedKey's fields) to continue after. */
export function encodeOpaqueCursor(position: object): string {
  return Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * The JSON object a cursor holds, or why it holds none. The listing checks the fields and answers a 422,
 * so a tampered or foreign cursor never reaches DynamoDB.
 */
export function decodeOpaqueCursor(
  raw: string,
  maxLength: number,
):
  | { position: Record<string, unknown> }
  | { problem: 'not base64url' | 'not a cursor of this listing' | 'malformed' } {
  if (raw.length > maxLength || !BASE64URL.test(raw)) return { problem: 'not base64url' };
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    return { problem: 'not a cursor of this listing' };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { problem: 'malformed' };
  return { position: body as Record<string, unknown> };
}

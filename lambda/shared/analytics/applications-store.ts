/**
 * The applications table (pk ApplicationId). Items carry the API's Application fields as they are
 * answered (docs/analytics-api.md), so a read needs no mapping.
 */
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  ScanCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { isConditionalCheckFailure } from './dynamo-errors.js';
import { pagesOf } from './dynamo-pages.js';

export interface ApplicationItem {
  readonly ApplicationId: string;
  readonly ApplicationName: string;
  readonly Description: string;
  readonly CreatedAt: string;
  readonly UpdatedAt: string;
}

export class ApplicationStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(item: ApplicationItem): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: item,
        ConditionExpression: 'attribute_not_exists(ApplicationId)',
      }),
    );
  }

  /** Strongly consistent: a deleted application must stop working at once. */
  async get(applicationId: string): Promise<ApplicationItem | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { ApplicationId: applicationId },
        ConsistentRead: true,
      }),
    );
    return Item as ApplicationItem | undefined;
  }

  async exists(applicationId: string): Promise<boolean> {
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { ApplicationId: applicationId },
        ConsistentRead: true,
        ProjectionExpression: 'ApplicationId',
      }),
    );
    return Item !== undefined;
  }

  /** Every application, following Scan pages past the 1 MB page limit; oldest first. */
  async list(): Promise<ApplicationItem[]> {
    const items: ApplicationItem[] = [];
    const pages = pagesOf<ApplicationItem>((startKey) =>
      this.doc.send(new ScanCommand({ TableName: this.tableName, ExclusiveStartKey: startKey })),
    );
    for await (const page of pages) items.push(...page);
    return items.sort(
      (a, b) => a.CreatedAt.localeCompare(b.CreatedAt) || a.ApplicationId.localeCompare(b.ApplicationId),
    );
  }

  /** Deletes the application; false when it did not exist. */
  async delete(applicationId: string): Promise<boolean> {
    try {
      await this.doc.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { ApplicationId: applicationId },
          ConditionExpression: 'attribute_exists(ApplicationId)',
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw error;
    }
  }
}

// Least privilege for the analytics functions (docs/analytics-api.md, "What each function needs").
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { Stream } from 'aws-cdk-lib/aws-kinesis';
import { ANALYTICS_TABLES } from '../../../contracts/analytics-resources.js';
import type { AnalyticsWarehouse } from '../../constructs/analytics-warehouse.js';
import type { AnalyticsFunctions } from './functions.js';

export interface AnalyticsData {
  readonly tables: Readonly<Record<keyof typeof ANALYTICS_TABLES, TableV2>>;
  readonly eventsStream: Stream;
  /** Only when the warehouse is enabled. */
  readonly warehouse?: AnalyticsWarehouse;
}

const dynamo = (sid: string, actions: readonly string[], resources: string[]): PolicyStatement =>
  new PolicyStatement({ sid, actions: actions.map((a) => `dynamodb:${a}`), resources });

export function grantAnalyticsFunctions(fns: AnalyticsFunctions, data: AnalyticsData): void {
  const { applications, authorizations, idempotency } = data.tables;
  // The authorizer finds a key by the hash of the presented value: that index, no other.
  const keyHashIndex = `${authorizations.tableArn}/index/${ANALYTICS_TABLES.authorizations.indexes[0].indexName}`;

  // Applications: create (PutItem), list (Scan), get, delete; a key is created by a TransactWriteItems
  // of a condition check on its application and a put. Keys: create, list (Query), get, enable/disable
  // (UpdateItem), delete one, and delete every key of a deleted application (Query + BatchWriteItem).
  fns.admin.addToRolePolicy(
    dynamo(
      'Applications',
      ['PutItem', 'GetItem', 'Scan', 'DeleteItem', 'ConditionCheckItem'],
      [applications.tableArn],
    ),
  );
  fns.admin.addToRolePolicy(
    dynamo(
      'Authorizations',
      ['PutItem', 'GetItem', 'Query', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'],
      [authorizations.tableArn],
    ),
  );
  // Read only: find the key by the hash of the presented value (the index), re-read it consistently
  // (the table), and confirm its application still exists.
  fns.authorizer.addToRolePolicy(dynamo('FindKeyByHash', ['Query'], [keyHashIndex]));
  fns.authorizer.addToRolePolicy(dynamo('ReadKey', ['GetItem'], [authorizations.tableArn]));
  fns.authorizer.addToRolePolicy(dynamo('ApplicationExists', ['GetItem'], [applications.tableArn]));
  // Events: the stream (write only), the application check, the idempotency records.
  fns.events.addToRolePolicy(
    new PolicyStatement({
      sid: 'WriteEvents',
      actions: ['kinesis:PutRecords'],
      resources: [data.eventsStream.streamArn],
    }),
  );
  if (data.eventsStream.encryptionKey) data.eventsStream.encryptionKey.grantEncrypt(fns.events);
  fns.events.addToRolePolicy(dynamo('ApplicationExists', ['GetItem'], [applications.tableArn]));
  fns.events.addToRolePolicy(
    dynamo('IdempotencyRecords', ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'], [idempotency.tableArn]),
  );
  if (data.warehouse) {
    const role = fns.warehouseSetup.role;
    if (!role) throw new Error('analytics stack: missing the setup function role');
    data.warehouse.grantDataApi(role);
  }
}

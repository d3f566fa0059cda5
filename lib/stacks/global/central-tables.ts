// The central DynamoDB tables of contracts/tables.ts (scope "central"): job queue, job templates, webhooks
// + delivery outbox, inference endpoints. Created directly in the stack, so their logical IDs stay
// `Table-<id>…` (a wrapping construct would add a path segment).
import type { RemovalPolicy } from 'aws-cdk-lib';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { TABLES, tableName } from '../../../contracts/tables.js';
import type { TableId } from '../../../contracts/tables.js';
import type { PlatformConfig } from '../../config.js';
import { PlatformTable } from '../../constructs/platform-table.js';

export function addCentralTables(
  stack: Construct,
  config: PlatformConfig,
  removalPolicy: RemovalPolicy,
): ReadonlyMap<TableId, TableV2> {
  const tables = new Map<TableId, TableV2>();
  for (const [key, definition] of Object.entries(TABLES) as [TableId, (typeof TABLES)[TableId]][]) {
    if (definition.scope !== 'central') continue;
    const construct = new PlatformTable(stack, `Table-${definition.id}`, {
      definition,
      tableName: tableName(config.projectName, definition, config.resourceGeneration),
      settings: config.tables,
      removalPolicy,
    });
    tables.set(key, construct.table);
  }
  return tables;
}

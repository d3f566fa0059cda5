/**
 * A DynamoDB table from its definition in contracts/tables.ts or contracts/analytics-resources.ts (the same data the
 * services and dynalite use): on-demand, AWS-managed encryption, point-in-time recovery, deletion
 * protection and removal policy from config, TTL where the definition has one, every index projecting ALL.
 */
import type { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, Billing, TableEncryptionV2, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { Attribute } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import type { TablesConfig } from '../config.js';
import type { KeyAttribute, TableDefinition } from '../../contracts/tables.js';

export interface PlatformTableProps {
  /** Keys, indexes and TTL attribute of the table (contracts/tables.ts, contracts/analytics-resources.ts). */
  readonly definition: TableDefinition;
  /** Physical name (tableName(project, definition)): services find the table by it. */
  readonly tableName: string;
  /** Deletion protection and point-in-time recovery (`tables.*`). */
  readonly settings: TablesConfig;
  /** What `cdk destroy` does with the table (`removal_policy`, lib/retention.ts). */
  readonly removalPolicy: RemovalPolicy;
}

const attribute = (a: KeyAttribute): Attribute => ({
  name: a.name,
  type: a.type === 'S' ? AttributeType.STRING : AttributeType.NUMBER,
});

export class PlatformTable extends Construct {
  /** The table. */
  readonly table: TableV2;

  constructor(scope: Construct, id: string, props: PlatformTableProps) {
    super(scope, id);
    const { definition, settings } = props;
    this.table = new TableV2(this, 'Table', {
      tableName: props.tableName,
      partitionKey: attribute(definition.partitionKey),
      ...(definition.sortKey ? { sortKey: attribute(definition.sortKey) } : {}),
      billing: Billing.onDemand(),
      encryption: TableEncryptionV2.awsManagedKey(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: settings.pointInTimeRecovery },
      deletionProtection: settings.deletionProtection,
      removalPolicy: props.removalPolicy,
      ...(definition.ttlAttribute ? { timeToLiveAttribute: definition.ttlAttribute } : {}),
      globalSecondaryIndexes: definition.indexes.map((index) => ({
        indexName: index.indexName,
        partitionKey: attribute(index.partitionKey),
        ...(index.sortKey ? { sortKey: attribute(index.sortKey) } : {}),
      })),
    });
  }
}

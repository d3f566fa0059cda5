/**
 * Data the region keeps for itself: the access-log bucket (ALB access logs and S3 server access logs),
 * the cost-report bucket (one JSON object per report, written by cost-monitor) and the regional
 * cost-report table (scheduled windows claimed exactly once, TABLES.costReports).
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  ObjectOwnership,
  StorageClass,
} from 'aws-cdk-lib/aws-s3';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import type { TablesConfig } from '../config.js';
import { TABLES } from '../../contracts/tables.js';
import { PlatformTable } from './platform-table.js';

export interface RegionalStorageProps {
  /** Physical name of the cost-report table: cost-monitor finds it by this name. */
  readonly costReportsTableName: string;
  /** Deletion protection and point-in-time recovery of the table (`tables.*`). */
  readonly tableSettings: TablesConfig;
  /**
   * What `cdk destroy` does with the buckets and the table (`removal_policy`). DESTROY also empties the
   * buckets first (auto-delete objects), as CloudFormation cannot delete a bucket with objects.
   */
  readonly removalPolicy: RemovalPolicy;
}

export class RegionalStorage extends Construct {
  /** ALB access logs and S3 server access logs of the region. */
  readonly accessLogs: Bucket;
  /** One JSON object per cost report. */
  readonly costReports: Bucket;
  /** Scheduled report windows, each claimed exactly once. */
  readonly costReportsTable: TableV2;

  constructor(scope: Construct, id: string, props: RegionalStorageProps) {
    super(scope, id);
    // S3 server access logs are delivered under a bucket policy (not the LogDeliveryWrite ACL), so the
    // log bucket keeps ACLs disabled. Scoped to this construct; the app-wide feature flag is not needed.
    this.node.setContext('@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy', true);
    const destroy = props.removalPolicy === RemovalPolicy.DESTROY;
    const removal = { removalPolicy: props.removalPolicy, autoDeleteObjects: destroy };
    this.accessLogs = new Bucket(this, 'AccessLogs', {
      // ALB access log delivery supports SSE-S3 only.
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(365) }],
      // Audit records outlive the stack under "retain".
      ...removal,
    });
    NagSuppressions.addResourceSuppressions(this.accessLogs, [
      {
        id: 'AwsSolutions-S1',
        reason: 'This bucket is the access-log destination itself; logging its own accesses would recurse',
      },
    ]);

    this.costReports = new Bucket(this, 'CostReports', {
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      versioned: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      serverAccessLogsBucket: this.accessLogs,
      serverAccessLogsPrefix: 's3/cost-reports/',
      lifecycleRules: [
        {
          id: 'age-reports',
          // Reports are read mostly while recent; older ones are kept cheaply for a year, then dropped.
          transitions: [{ storageClass: StorageClass.INFREQUENT_ACCESS, transitionAfter: Duration.days(90) }],
          expiration: Duration.days(400),
          noncurrentVersionExpiration: Duration.days(30),
          abortIncompleteMultipartUploadAfter: Duration.days(7),
        },
      ],
      ...removal,
    });

    this.costReportsTable = new PlatformTable(this, 'CostReportsTable', {
      definition: TABLES.costReports,
      tableName: props.costReportsTableName,
      settings: props.tableSettings,
      removalPolicy: props.removalPolicy,
    }).table;
  }
}

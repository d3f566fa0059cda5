/**
 * The optional analytics warehouse (docs/analytics-stack.md, `POST /redshift/setup`): a Redshift Serverless namespace and
 * workgroup in the isolated subnets of a small VPC of its own, with enhanced VPC routing, reading the
 * events stream through Redshift streaming ingestion.
 *
 * - Network: three isolated subnets (Redshift Serverless wants subnets in three Availability Zones), no
 *   internet or NAT gateway, VPC flow logs, and a Kinesis Data Streams interface endpoint so streaming
 *   ingestion stays inside the VPC with enhanced VPC routing on. The workgroup's security group admits
 *   nothing and may only reach the endpoint (HTTPS), whose group admits only the workgroup; the Redshift
 *   Data API, which the setup function uses, needs no network path.
 * - Credentials: Redshift keeps the admin password in Secrets Manager (`manageAdminPassword`); nothing of
 *   this stack reads it. The setup function connects with its own IAM identity
 *   (`redshift-serverless:GetCredentials`, database user `IAMR:<role name>`), mapped to the database role
 *   `sys:dba` by the `RedshiftDbRoles` principal tag so it can create the external schema and the
 *   materialized views.
 * - Stream access: a role only Redshift can assume, allowed to read exactly the events stream; it is
 *   associated with the namespace and named in `CREATE EXTERNAL SCHEMA … IAM_ROLE '<arn>'`.
 */
import { Tags } from 'aws-cdk-lib';
import type { RemovalPolicy } from 'aws-cdk-lib';
import {
  InterfaceVpcEndpointAwsService,
  IpAddresses,
  Port,
  SecurityGroup,
  SubnetType,
  Vpc,
} from 'aws-cdk-lib/aws-ec2';
import type { InterfaceVpcEndpoint } from 'aws-cdk-lib/aws-ec2';
import { CompositePrincipal, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import type { IStream } from 'aws-cdk-lib/aws-kinesis';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnNamespace, CfnWorkgroup } from 'aws-cdk-lib/aws-redshiftserverless';
import { Construct } from 'constructs';
import { logAllVpcTraffic } from './vpc-flow-logs.js';

/** Database the namespace creates; the setup function creates the external schema and views in it. */
const WAREHOUSE_DATABASE = 'analytics';
/** Smallest Redshift Serverless base capacity (RPUs): the warehouse scales up from here on demand. */
const WAREHOUSE_BASE_CAPACITY_RPU = 8;
/** Principal tag Redshift Serverless reads on GetCredentials to grant database roles (colon-separated). */
export const REDSHIFT_DB_ROLES_TAG = 'RedshiftDbRoles';
/** Database role of the setup function: may create schemas and (materialized) views, nothing more. */
export const SETUP_DB_ROLE = 'sys:dba';

/** Actions Redshift streaming ingestion needs on the stream (Redshift Database Developer Guide). */
export const STREAM_READ_ACTIONS = [
  'kinesis:DescribeStream',
  'kinesis:DescribeStreamSummary',
  'kinesis:GetRecords',
  'kinesis:GetShardIterator',
  'kinesis:ListShards',
] as const;

export interface AnalyticsWarehouseProps {
  /** `<project>-analytics[-g<N>]` (lib/names.ts warehouseName): namespace and workgroup name. */
  readonly name: string;
  /** The events stream the warehouse ingests. */
  readonly stream: IStream;
  /**
   * RETAIN keeps the namespace (the only copy of events older than the stream's retention); the
   * workgroup is compute only and is deleted with the stack either way.
   */
  readonly removalPolicy: RemovalPolicy;
}

export class AnalyticsWarehouse extends Construct {
  /** The warehouse's own VPC: three isolated subnets. */
  readonly vpc: Vpc;
  /** The workgroup's security group: no inbound, HTTPS to the Kinesis endpoint only. */
  readonly securityGroup: SecurityGroup;
  /** Kinesis Data Streams interface endpoint (streaming ingestion stays in the VPC). */
  readonly kinesisEndpoint: InterfaceVpcEndpoint;
  /** The Redshift Serverless namespace (database, admin credentials, IAM roles). */
  readonly namespace: CfnNamespace;
  /** The Redshift Serverless workgroup (compute, network). */
  readonly workgroup: CfnWorkgroup;
  /** Role Redshift assumes to read the stream: REDSHIFT_STREAM_ROLE_ARN of the setup function. */
  readonly streamRole: Role;
  /** Database the setup function creates the external schema and views in. */
  readonly database: string = WAREHOUSE_DATABASE;

  constructor(scope: Construct, id: string, props: AnalyticsWarehouseProps) {
    super(scope, id);

    this.vpc = new Vpc(this, 'Vpc', {
      ipAddresses: IpAddresses.cidr('10.64.0.0/22'),
      maxAzs: 3,
      natGateways: 0,
      createInternetGateway: false,
      restrictDefaultSecurityGroup: false,
      subnetConfiguration: [{ name: 'warehouse', subnetType: SubnetType.PRIVATE_ISOLATED, cidrMask: 24 }],
    });
    logAllVpcTraffic(this, this.vpc, RetentionDays.ONE_YEAR);

    this.securityGroup = new SecurityGroup(this, 'WorkgroupSecurityGroup', {
      vpc: this.vpc,
      description: 'Redshift Serverless workgroup: no inbound; HTTPS to the Kinesis endpoint only',
      allowAllOutbound: false,
    });
    this.kinesisEndpoint = this.vpc.addInterfaceEndpoint('KinesisEndpoint', {
      service: InterfaceVpcEndpointAwsService.KINESIS_STREAMS,
      privateDnsEnabled: true,
      subnets: { subnetType: SubnetType.PRIVATE_ISOLATED },
      // Only the workgroup may use it (below), not the whole VPC CIDR.
      open: false,
    });
    // Egress rule on the workgroup's group and ingress rule on the endpoint's, group to group.
    this.securityGroup.connections.allowTo(
      this.kinesisEndpoint,
      Port.tcp(443),
      'Kinesis Data Streams endpoint',
    );

    this.streamRole = new Role(this, 'StreamRole', {
      assumedBy: new CompositePrincipal(
        new ServicePrincipal('redshift.amazonaws.com'),
        new ServicePrincipal('redshift-serverless.amazonaws.com'),
      ),
      description: `Redshift streaming ingestion from ${props.stream.streamName}: read that stream only`,
    });
    this.streamRole.addToPrincipalPolicy(
      new PolicyStatement({ actions: [...STREAM_READ_ACTIONS], resources: [props.stream.streamArn] }),
    );
    // A customer-managed stream key would also need kms:Decrypt here; the stream uses aws/kinesis.
    if (props.stream.encryptionKey) props.stream.encryptionKey.grantDecrypt(this.streamRole);

    this.namespace = new CfnNamespace(this, 'Namespace', {
      namespaceName: props.name,
      dbName: WAREHOUSE_DATABASE,
      manageAdminPassword: true,
      iamRoles: [this.streamRole.roleArn],
      // `IAM_ROLE default` in SQL means this role too.
      defaultIamRoleArn: this.streamRole.roleArn,
      logExports: ['userlog', 'connectionlog', 'useractivitylog'],
    });
    this.namespace.applyRemovalPolicy(props.removalPolicy);

    this.workgroup = new CfnWorkgroup(this, 'Workgroup', {
      workgroupName: props.name,
      // Ref of a namespace is its name: the workgroup waits for it.
      namespaceName: this.namespace.ref,
      baseCapacity: WAREHOUSE_BASE_CAPACITY_RPU,
      enhancedVpcRouting: true,
      publiclyAccessible: false,
      subnetIds: this.vpc.isolatedSubnets.map((s) => s.subnetId),
      securityGroupIds: [this.securityGroup.securityGroupId],
      configParameters: [{ parameterKey: 'enable_user_activity_logging', parameterValue: 'true' }],
    });
  }

  /** ARN of the workgroup (partition from the template, never a literal). */
  get workgroupArn(): string {
    return this.workgroup.attrWorkgroupWorkgroupArn;
  }

  /**
   * Lets `role` run SQL on the workgroup through the Redshift Data API with temporary IAM credentials,
   * as a database user holding SETUP_DB_ROLE.
   */
  grantDataApi(role: IRole): PolicyStatement[] {
    const statements = [
      new PolicyStatement({
        sid: 'RunSqlOnTheWarehouse',
        actions: ['redshift-data:ExecuteStatement'],
        resources: [this.workgroupArn],
      }),
      new PolicyStatement({
        sid: 'TemporaryDatabaseCredentials',
        actions: ['redshift-serverless:GetCredentials'],
        resources: [this.workgroupArn],
      }),
      // A statement id is not a resource: DescribeStatement takes none, so it is limited to the
      // statements this role itself ran (the Data API's documented condition key).
      new PolicyStatement({
        sid: 'DescribeOwnStatements',
        actions: ['redshift-data:DescribeStatement'],
        resources: ['*'],
        conditions: { StringEquals: { 'redshift-data:statement-owner-iam-userid': '${aws:userid}' } },
      }),
    ];
    for (const statement of statements) role.addToPrincipalPolicy(statement);
    Tags.of(role).add(REDSHIFT_DB_ROLES_TAG, SETUP_DB_ROLE);
    return statements;
  }
}

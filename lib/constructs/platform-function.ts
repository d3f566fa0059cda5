/**
 * Every Lambda of the platform: Node.js 22 on arm64, bundled by the local esbuild (minified, source maps,
 * ESM) — never in Docker — with X-Ray tracing, a log group with bounded retention, and Powertools JSON
 * logs. Entry: `lambda/<name>/index.ts`, exporting `handler`.
 *
 * Least privilege: unless a role is passed, each function gets its own role that may write only to its
 * own log group (no AWSLambdaBasicExecutionRole, which allows every log group of the account). A function
 * in a VPC also gets AWSLambdaVPCAccessExecutionRole (the ENI actions Lambda needs, which have no resource
 * scoping). Callers grant everything else.
 */
import { join } from 'node:path';
import { RemovalPolicy } from 'aws-cdk-lib';
import type { Size, Duration } from 'aws-cdk-lib';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import type { IVpc, SubnetSelection, ISecurityGroup } from 'aws-cdk-lib/aws-ec2';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';

/** Repository root: the bundler's project root and where `lambda/` lives. */
export const PROJECT_ROOT = join(import.meta.dirname, '..', '..');

export interface PlatformFunctionProps {
  /** Folder under `lambda/` holding `index.ts`. */
  readonly entryName: string;
  readonly description: string;
  readonly timeout: Duration;
  readonly memorySize?: number;
  readonly environment?: Record<string, string>;
  readonly vpc?: IVpc;
  readonly vpcSubnets?: SubnetSelection;
  readonly securityGroups?: ISecurityGroup[];
  readonly reservedConcurrentExecutions?: number;
  readonly ephemeralStorageSize?: Size;
  /** Execution role; default a new role allowed to write only to the function's log group. */
  readonly role?: IRole;
  /** Files copied next to the bundle (e.g. a CA PEM), relative paths inside the function's folder. */
  readonly commandHooksAfterBundling?: (inputDir: string, outputDir: string) => string[];
}

export class PlatformFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: PlatformFunctionProps) {
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const afterBundling = props.commandHooksAfterBundling;
    const role =
      props.role ??
      new Role(scope, `${id}Role`, {
        assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
        description: `Execution role of ${props.entryName}`,
        ...(props.vpc
          ? {
              managedPolicies: [
                ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSLambdaVPCAccessExecutionRole'),
              ],
            }
          : {}),
      });
    super(scope, id, {
      entry: join(PROJECT_ROOT, 'lambda', props.entryName, 'index.ts'),
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      timeout: props.timeout,
      memorySize: props.memorySize ?? 512,
      tracing: Tracing.ACTIVE,
      logGroup,
      role,
      vpc: props.vpc,
      vpcSubnets: props.vpcSubnets,
      securityGroups: props.securityGroups,
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      ephemeralStorageSize: props.ephemeralStorageSize,
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME: props.entryName,
        POWERTOOLS_LOG_LEVEL: 'INFO',
        ...props.environment,
      },
      bundling: {
        format: OutputFormat.ESM,
        target: 'node22',
        minify: true,
        sourceMap: true,
        // Bundle the SDK too: the versions in package-lock.json are the versions that run.
        externalModules: [],
        mainFields: ['module', 'main'],
        // Bundled CommonJS dependencies call require(); ESM output needs it defined.
        banner: "import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);",
        forceDockerBundling: false,
        logLevel: LogLevel.ERROR,
        ...(afterBundling
          ? {
              commandHooks: {
                beforeBundling: () => [],
                beforeInstall: () => [],
                afterBundling,
              },
            }
          : {}),
      },
    });
    logGroup.grantWrite(role);
    NagSuppressions.addResourceSuppressions(this, [
      {
        id: 'AwsSolutions-L1',
        reason:
          'Node.js 22 is the platform runtime (docs/toolchain.md); moving to a newer one is a deliberate upgrade',
      },
      {
        id: 'Serverless-LambdaLatestVersion',
        reason:
          'Node.js 22 is the platform runtime (docs/toolchain.md); moving to a newer one is a deliberate upgrade',
      },
    ]);
    if (!props.role) {
      NagSuppressions.addResourceSuppressions(
        role,
        [
          {
            id: 'AwsSolutions-IAM5',
            reason:
              'X-Ray PutTraceSegments/PutTelemetryRecords (active tracing) support no resource-level permissions',
            appliesTo: ['Resource::*'],
          },
          ...(props.vpc
            ? [
                {
                  id: 'AwsSolutions-IAM4',
                  reason:
                    'AWSLambdaVPCAccessExecutionRole: the ENI actions Lambda needs to join a VPC, which have no resource scoping',
                  appliesTo: [
                    'Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole',
                  ],
                },
              ]
            : []),
        ],
        true,
      );
    }
  }
}

/**
 * Every Lambda of the platform: Node.js 22 on arm64, bundled by the local esbuild (minified, source maps,
 * ESM) — never in Docker — with X-Ray tracing, a log group with bounded retention, and Powertools JSON
 * logs. Entry: `lambda/<name>/index.ts`, exporting `handler`.
 */
import { join } from 'node:path';
import { RemovalPolicy } from 'aws-cdk-lib';
import type { Size, Duration } from 'aws-cdk-lib';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import type { IVpc, SubnetSelection, ISecurityGroup } from 'aws-cdk-lib/aws-ec2';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
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
  }
}

/**
 * Every Lambda of the platform: Node.js 24 on arm64, bundled by the local esbuild (minified, source maps
 * without sources content, ESM; choices per function in docs/edge-lambdas.md, "Bundles and init") —
 * never in Docker — with X-Ray tracing, a log group with bounded retention, and Powertools JSON
 * logs. Entry: `lambda/<name>/index.ts`, exporting `handler`.
 *
 * Least privilege: unless a role is passed, each function gets its own role that may write only to its
 * own log group (no AWSLambdaBasicExecutionRole, which allows every log group of the account). A function
 * in a VPC also gets AWSLambdaVPCAccessExecutionRole (the ENI actions Lambda needs, which have no resource
 * scoping). Callers grant everything else.
 *
 * cdk-nag: the function applies its own suppressions, once (runtime, dead-letter queue, the X-Ray and VPC
 * grants on its role); callers suppress only findings of the grants they add.
 */
import { join } from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import type { IVpc, SubnetSelection, ISecurityGroup } from 'aws-cdk-lib/aws-ec2';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { LogLevel, NodejsFunction, OutputFormat, SourceMapMode } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BuildOptions } from 'esbuild';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import { functionTimeoutSeconds } from '../../contracts/api-routes.js';
import type { ApiDefinition, RouteHandler } from '../../contracts/api-routes.js';

/** Repository root: the bundler's project root and where `lambda/` lives. */
export const PROJECT_ROOT = join(import.meta.dirname, '..', '..');

/**
 * Node.js major version of the Lambdas and the service images (cluster/Dockerfile): the newest LTS with
 * a Lambda runtime in aws-cdk-lib (docs/operations.md, "Runtime support horizon").
 */
export const PLATFORM_NODE_MAJOR = 24;

/** The Lambda runtime of PLATFORM_NODE_MAJOR, pinned (not NODEJS_LATEST, which moves with aws-cdk-lib). */
export const PLATFORM_RUNTIME = Runtime.NODEJS_24_X;

const RUNTIME_REASON =
  'Node.js 24 is the platform runtime (docs/operations.md, "Runtime support horizon"); moving to a newer ' +
  'one is a deliberate upgrade';

/**
 * Who invokes a function, and so why cdk-nag's Serverless-LambdaDLQ does not apply: every invoker calls
 * synchronously and sees each failure, while a dead-letter queue only receives failed asynchronous
 * events. The two API Gateway entries state the same fact in the wording each stack has always used
 * (the reason is part of the template).
 */
const SYNCHRONOUS_INVOKERS = {
  'api-gateway':
    'Invoked synchronously by API Gateway, which answers the caller with any failure: a dead-letter queue ' +
    'only applies to asynchronous invocations',
  'api-gateway-integration-or-authorizer':
    'Invoked synchronously by API Gateway only (integration or authorizer): the caller receives the ' +
    'error, there is no asynchronous event to park in a dead-letter queue',
  'cloudformation-provider':
    'Invoked synchronously by the CloudFormation provider, which reports every failure to the stack',
  'secrets-manager-rotation':
    'Invoked synchronously by Secrets Manager, which retries each rotation step and records failures',
  'eventbridge-schedule':
    'Invoked every minute by an EventBridge schedule to sample a value: a failed run is superseded by the ' +
    'next one, so there is nothing to replay; failures show in the function Errors alarm',
} as const;
type FunctionInvoker = keyof typeof SYNCHRONOUS_INVOKERS;

/** Timeout of the function behind `handler` in `api`, by the one rule of `functionTimeoutSeconds()`. */
export function routeFunctionTimeout(api: ApiDefinition, handler: RouteHandler): Duration {
  return Duration.seconds(functionTimeoutSeconds(api, handler));
}

/**
 * Functions started with `--enable-source-maps` (NODE_OPTIONS): Node then parses the bundle's source map
 * at module init (measured by bench/lambda-init.ts), so only functions no user waits on and whose
 * failures reach CloudWatch as thrown errors with a stack: the CloudFormation custom resource of the
 * internal CA and the Secrets Manager rotation. The request-path functions log failures by name, code
 * and message (lambda/shared/errors.ts, describeError) and start without the flag; their bundles still
 * carry the source map (index.mjs.map, sources by path, no sources content), so a stack from them
 * resolves offline (docs/edge-lambdas.md, "Bundles and init").
 */
const SOURCE_MAPPED_FUNCTIONS: ReadonlySet<string> = new Set(['internal-ca', 'signing-key-rotation']);

/** NODE_OPTIONS of the function behind `entryName`; undefined when it starts without options. */
export function functionNodeOptions(entryName: string): string | undefined {
  return SOURCE_MAPPED_FUNCTIONS.has(entryName) ? '--enable-source-maps' : undefined;
}

/**
 * The `define` of a global proxy's bundle (control-plane-proxy, inference-stream-proxy in the global
 * stack): the regional target lookup and its SSM and ELBv2 clients are left out of it
 * (lambda/shared/proxy-wiring.ts).
 */
export const GLOBAL_PROXY_BUNDLE: Readonly<Record<string, string>> = {
  'process.env.GCO_PROXY_BUNDLE': JSON.stringify('global'),
};

/**
 * The bundling options PlatformFunction passes to NodejsFunction — the one place bench/lambda-init.ts
 * reads them from, so the benchmark bundles exactly what is deployed. `defines`: the function's
 * compile-time constants (PlatformFunctionProps.bundleDefines).
 */
export function functionBundling(
  entryName: string,
  defines: Readonly<Record<string, string>> = {},
): BundlingOptions {
  void entryName; // every function is bundled alike; per-function choices are `defines` and NODE_OPTIONS
  return {
    format: OutputFormat.ESM,
    target: `node${PLATFORM_NODE_MAJOR}`,
    // Whitespace, syntax and identifiers: a smaller bundle parses faster. No keepNames: error classes set
    // `name` themselves, and a stack's function names come from the source map.
    minify: true,
    // index.mjs.map in the asset, naming the original files but without their text (a smaller map).
    sourceMap: true,
    sourcesContent: false,
    // Bundle the SDK too: the versions in package-lock.json are the versions that run, tree-shaken to
    // the clients a handler imports, in one file (the runtime's SDK loads from many files at init).
    externalModules: [],
    mainFields: ['module', 'main'],
    ...(Object.keys(defines).length > 0 ? { define: { ...defines } } : {}),
    // Bundled CommonJS dependencies call require(); ESM output needs it defined.
    banner: "import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);",
    forceDockerBundling: false,
    logLevel: LogLevel.ERROR,
  };
}

/**
 * The esbuild build options NodejsFunction derives from `bundling` (aws-lambda-nodejs' Bundling: `--bundle
 * --platform=node` plus one flag per option), for bundling a handler outside CDK the way CDK does.
 */
export function esbuildOptionsOf(bundling: BundlingOptions, entry: string, outfile: string): BuildOptions {
  const mode = bundling.sourceMapMode;
  const sourcemap =
    mode === undefined || mode === SourceMapMode.DEFAULT ? (bundling.sourceMap ?? mode !== undefined) : mode;
  return {
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    ...(bundling.target !== undefined ? { target: bundling.target } : {}),
    ...(bundling.format !== undefined ? { format: bundling.format } : {}),
    minify: bundling.minify ?? false,
    sourcemap,
    sourcesContent: bundling.sourcesContent ?? true,
    external: [...(bundling.externalModules ?? ['@aws-sdk/*']), ...(bundling.nodeModules ?? [])],
    ...(bundling.define !== undefined ? { define: bundling.define } : {}),
    keepNames: bundling.keepNames ?? false,
    ...(bundling.banner !== undefined ? { banner: { js: bundling.banner } } : {}),
    ...(bundling.footer !== undefined ? { footer: { js: bundling.footer } } : {}),
    ...(bundling.mainFields !== undefined ? { mainFields: bundling.mainFields } : {}),
    logLevel: 'error',
  };
}

export interface PlatformFunctionProps {
  /** Folder under `lambda/` holding `index.ts`; also the function's Powertools service name. */
  readonly entryName: string;
  /** The function's description in the Lambda console. */
  readonly description: string;
  /** Longest run of one invocation; a function behind API routes takes `routeFunctionTimeout()`. */
  readonly timeout: Duration;
  /** Who invokes the function: the reason recorded for the dead-letter-queue finding. */
  readonly invokedBy: FunctionInvoker;
  /**
   * Memory (and so CPU) of the function, MB.
   * @default 512
   */
  readonly memorySize?: number;
  /**
   * Variables added to the ones every function gets (POWERTOOLS_SERVICE_NAME, POWERTOOLS_LOG_LEVEL, and
   * NODE_OPTIONS where `functionNodeOptions()` gives one).
   * @default none
   */
  readonly environment?: Record<string, string>;
  /**
   * Where a function that reaches private resources runs.
   * @default outside any VPC
   */
  readonly network?: {
    /** The VPC. */
    readonly vpc: IVpc;
    /** Subnets of the function's network interfaces. */
    readonly subnets: SubnetSelection;
    /** Security groups of the function's network interfaces. */
    readonly securityGroups: ISecurityGroup[];
  };
  /**
   * Execution role (callers that must name the role, e.g. because other stacks grant it by ARN).
   * @default a new role allowed to write only to the function's log group
   */
  readonly role?: IRole;
  /**
   * Compile-time constants of this function's bundle (esbuild `define`): a per-function bundle that
   * leaves out code the function never runs, e.g. GLOBAL_PROXY_BUNDLE.
   * @default none
   */
  readonly bundleDefines?: Readonly<Record<string, string>>;
}

export class PlatformFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: PlatformFunctionProps) {
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const { network } = props;
    const nodeOptions = functionNodeOptions(props.entryName);
    const role =
      props.role ??
      new Role(scope, `${id}Role`, {
        assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
        description: `Execution role of ${props.entryName}`,
        ...(network
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
      runtime: PLATFORM_RUNTIME,
      architecture: Architecture.ARM_64,
      timeout: props.timeout,
      memorySize: props.memorySize ?? 512,
      tracing: Tracing.ACTIVE,
      logGroup,
      role,
      ...(network
        ? { vpc: network.vpc, vpcSubnets: network.subnets, securityGroups: network.securityGroups }
        : {}),
      environment: {
        ...(nodeOptions !== undefined ? { NODE_OPTIONS: nodeOptions } : {}),
        POWERTOOLS_SERVICE_NAME: props.entryName,
        POWERTOOLS_LOG_LEVEL: 'INFO',
        ...props.environment,
      },
      bundling: functionBundling(props.entryName, props.bundleDefines),
    });
    logGroup.grantWrite(role);
    NagSuppressions.addResourceSuppressions(this, [
      { id: 'AwsSolutions-L1', reason: RUNTIME_REASON },
      { id: 'Serverless-LambdaLatestVersion', reason: RUNTIME_REASON },
      { id: 'Serverless-LambdaDLQ', reason: SYNCHRONOUS_INVOKERS[props.invokedBy] },
    ]);
    // On a caller's role too: active tracing adds the X-Ray grant to whichever role the function runs as.
    NagSuppressions.addResourceSuppressions(
      role,
      [
        {
          id: 'AwsSolutions-IAM5',
          reason:
            'X-Ray PutTraceSegments/PutTelemetryRecords (active tracing) support no resource-level permissions',
          appliesTo: ['Resource::*'],
        },
        ...(network && !props.role
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

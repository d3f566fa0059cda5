/**
 * `<project>-global`, deployed once to the global region (docs/global-stack.md):
 * - the global REST API (EDGE where the partition has edge-optimized APIs) built from
 *   `globalApiDefinition()`, its resource policy and the WAF web ACL;
 * - the Global Accelerator and its TCP/443 listener (commercial partition, when at least one deployment
 *   region is an accelerator region); the listener ARN is written into the SSM parameter
 *   `/<project>/accelerator-listener-arn` of each accelerator region, where that region's stack reads it
 *   to add its endpoint group (its internal ALB) — a weak reference, no CDK cross-region export;
 * - the edge functions of the global API: the aggregator (with its named role, granted by every regional
 *   API's resource policy), the control-plane and inference proxies (accelerator partitions only), the
 *   studio login (analytics environment only);
 * - the envelope signing-key secret with its rotation, and the internal CA secret, both replicated to
 *   every deployment region;
 * - the central DynamoDB tables (job queue, job templates, webhooks + delivery outbox, inference
 *   endpoints).
 * Tables, the API access logs and the WAF log group follow `removal_policy`; their fixed names carry
 * `resource_generation` (lib/names.ts).
 */
import { Aws, CfnOutput, RemovalPolicy } from 'aws-cdk-lib';
import type { CfnUserPool } from 'aws-cdk-lib/aws-cognito';
import { Accelerator, ConnectionProtocol, IpAddressType } from 'aws-cdk-lib/aws-globalaccelerator';
import type { Listener } from 'aws-cdk-lib/aws-globalaccelerator';
import { AnyPrincipal, PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import { aggregatorEnvironment } from '../../contracts/env/aggregator.js';
import { proxyEnvironment } from '../../contracts/env/proxy.js';
import { studioLoginEnvironment } from '../../contracts/env/studio-login.js';
import { AGGREGATOR_REGIONAL_ROUTES, globalApiDefinition } from '../../contracts/api-routes.js';
import type { ApiDefinition, RouteHandler } from '../../contracts/api-routes.js';
import {
  acceleratorListenerParameterName,
  aggregatorRoleName,
  internalCaSecretName,
  regionalApiParameterPath,
  signingKeySecretName,
  wafLogGroupName,
} from '../names.js';
import { dataRemovalPolicy } from '../retention.js';
import { AcceleratorListenerParameters } from '../constructs/accelerator-listener-parameters.js';
import { GlobalApiWaf } from '../constructs/global-api-waf.js';
import { InternalCertificateAuthority } from '../constructs/internal-ca.js';
import {
  GLOBAL_PROXY_BUNDLE,
  PlatformFunction,
  routeFunctionTimeout,
} from '../constructs/platform-function.js';
import { PlatformRestApi } from '../constructs/platform-rest-api.js';
import { PlatformTable } from '../constructs/platform-table.js';
import { SigningKeySecret } from '../constructs/signing-key-secret.js';
import { StudioEnvironment } from '../constructs/studio-environment.js';
import { GlobalMonitoring } from '../monitoring/global-monitoring.js';
import { TABLES, tableName } from '../../contracts/tables.js';
import type { TableId } from '../../contracts/tables.js';
import { PlatformStack } from './platform-stack.js';
import type { PlatformStackProps } from './platform-stack.js';

/** Deploys to the config's global region. */
export type GlobalStackProps = PlatformStackProps;

export class GlobalStack extends PlatformStack {
  readonly apiDefinition: ApiDefinition;
  readonly api: PlatformRestApi;
  /** The central tables, by id. */
  readonly tables: ReadonlyMap<TableId, TableV2>;
  readonly signingKeySecret: Secret;
  readonly internalCaSecret: Secret;
  /** PEM of the internal CA certificate (a deploy-time value): the proxies' `INTERNAL_CA_PEM`. */
  readonly internalCaCertificatePem: string;
  readonly aggregatorRole: Role;
  /** Functions behind the global API's routes, by handler. */
  readonly functions: Partial<Record<RouteHandler, PlatformFunction>>;
  /** Only where the partition has Global Accelerator. */
  readonly accelerator?: Accelerator;
  /** The accelerator's DNS name (the global proxies' ACCELERATOR_DNS); only with an accelerator. */
  readonly acceleratorDnsName?: string;
  /** TCP/443 pass-through listener; each regional stack adds one endpoint group (its internal ALB). */
  readonly acceleratorListener?: Listener;
  /** Writers of the listener ARN into each accelerator region's SSM parameter; only with an accelerator. */
  readonly acceleratorListenerParameters?: AcceleratorListenerParameters;
  /** Only when `waf.enabled`. */
  readonly waf?: GlobalApiWaf;
  /** Only when `analytics_environment.enabled`. */
  readonly studio?: StudioEnvironment;
  /** Only when `monitoring.enabled`. */
  readonly monitoring?: GlobalMonitoring;

  constructor(scope: Construct, id: string, props: GlobalStackProps) {
    const { config } = props;
    const region = config.globalRegion;
    super(scope, id, props, {
      region,
      description: `${config.projectName} global resources: global API, edge routing and central tables`,
    });
    const p = config.projectName;
    // Data outlives `cdk destroy` under removal_policy "retain" (docs/operations.md, "Teardown and redeploy").
    const removalPolicy = dataRemovalPolicy(config);
    // Secrets are replicated to every deployment region other than this one.
    const replicaRegions = config.regions.filter((r) => r !== region);

    // ---- central tables ------------------------------------------------------------------------
    const tables = new Map<TableId, TableV2>();
    for (const [key, definition] of Object.entries(TABLES) as [TableId, (typeof TABLES)[TableId]][]) {
      if (definition.scope !== 'central') continue;
      const construct = new PlatformTable(this, `Table-${definition.id}`, {
        definition,
        tableName: tableName(p, definition, config.resourceGeneration),
        settings: config.tables,
        removalPolicy,
      });
      tables.set(key, construct.table);
    }
    this.tables = tables;

    // ---- envelope signing key and internal CA (replicated to every deployment region) ------------
    this.signingKeySecret = new SigningKeySecret(this, 'SigningKey', {
      projectName: p,
      secretName: signingKeySecretName(config),
      replicaRegions,
    }).secret;
    const ca = new InternalCertificateAuthority(this, 'InternalCa', {
      projectName: p,
      secretName: internalCaSecretName(config),
      replicaRegions,
    });
    this.internalCaSecret = ca.secret;
    this.internalCaCertificatePem = ca.certificatePem;

    // ---- global accelerator --------------------------------------------------------------------
    if (config.hasAccelerator) {
      this.accelerator = new Accelerator(this, 'Accelerator', {
        acceleratorName: `${p}-accelerator`,
        ipAddressType: IpAddressType.IPV4,
      });
      this.acceleratorDnsName = this.accelerator.dnsName;
      // TLS passes through to each region's internal ALB, which terminates it.
      this.acceleratorListener = this.accelerator.addListener('Https', {
        listenerName: `${p}-https`,
        protocol: ConnectionProtocol.TCP,
        portRanges: [{ fromPort: 443 }],
      });
      this.acceleratorListenerParameters = new AcceleratorListenerParameters(this, 'ListenerArnParameters', {
        parameterName: acceleratorListenerParameterName(config),
        listenerArn: this.acceleratorListener.listenerArn,
        regions: config.acceleratorRegions,
        projectName: p,
      });
    }

    // ---- aggregator role -----------------------------------------------------------------------
    this.aggregatorRole = new Role(this, 'AggregatorRole', {
      // Named: every regional API's resource policy grants this role by ARN.
      roleName: aggregatorRoleName(config),
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `${p} aggregator: calls the aggregate routes of every regional API`,
    });
    const parameterPath = regionalApiParameterPath(config);
    this.aggregatorRole.addToPolicy(
      new PolicyStatement({
        sid: 'DiscoverRegionalApis',
        actions: ['ssm:GetParametersByPath'],
        resources: [parameterPath, `${parameterPath}/*`].map((path) =>
          this.formatArn({ service: 'ssm', resource: 'parameter', resourceName: path.slice(1) }),
        ),
      }),
    );
    this.aggregatorRole.addToPolicy(
      new PolicyStatement({
        sid: 'InvokeRegionalAggregateRoutes',
        actions: ['execute-api:Invoke'],
        // API ids are assigned at deploy time in other regions: any API of the account, only these routes.
        resources: config.regions.flatMap((apiRegion) =>
          AGGREGATOR_REGIONAL_ROUTES.map((route) =>
            this.formatArn({
              service: 'execute-api',
              region: apiRegion,
              resource: '*',
              resourceName: `${config.stage}/${route.method}${route.path}`,
            }),
          ),
        ),
      }),
    );

    NagSuppressions.addResourceSuppressions(
      this.aggregatorRole,
      [
        {
          id: 'AwsSolutions-IAM5',
          reason:
            'Regional API ids are assigned at deploy time in other regions: the grant names the region, account, stage, ' +
            'method and path of each aggregate route and wildcards only the API id; discovery reads the parameters ' +
            'under /<project>/regional-api/ (one per region)',
          // The account is a token when synthesized without credentials, a number under `cdk deploy`.
          appliesTo: [
            {
              regex:
                '/^Resource::arn:<AWS::Partition>:execute-api:[a-z0-9-]+:(<AWS::AccountId>|\\d{12}):\\*\\//g',
            },
            {
              regex:
                '/^Resource::arn:<AWS::Partition>:ssm:[a-z0-9-]+:(<AWS::AccountId>|\\d{12}):parameter\\/.*\\/\\*$/g',
            },
          ],
        },
      ],
      true,
    );

    // ---- functions of the global API ------------------------------------------------------------
    this.apiDefinition = globalApiDefinition(config);
    const needed = new Set(
      this.apiDefinition.routes.flatMap((r) =>
        r.integration.type === 'lambda' ? [r.integration.handler] : [],
      ),
    );
    const functions: Partial<Record<RouteHandler, PlatformFunction>> = {};
    functions.aggregator = new PlatformFunction(this, 'Aggregator', {
      entryName: 'aggregator',
      description: `${p}: /api/v1/global/* fan-out to every regional API`,
      timeout: routeFunctionTimeout(this.apiDefinition, 'aggregator'),
      invokedBy: 'api-gateway',
      role: this.aggregatorRole,
      environment: aggregatorEnvironment({
        discovery: { source: 'ssm', parameterPath },
        expectedRegions: config.regions,
      }),
    });

    if (this.accelerator && (needed.has('control-plane-proxy') || needed.has('inference-stream-proxy'))) {
      const environment = proxyEnvironment({
        mode: 'global',
        backendHostname: config.backendHostname,
        backendPort: 443,
        acceleratorDns: this.accelerator.dnsName,
        caPem: this.internalCaCertificatePem,
        signingKeySecretArn: this.signingKeySecret.secretArn,
      });
      functions['control-plane-proxy'] = new PlatformFunction(this, 'ControlPlaneProxy', {
        entryName: 'control-plane-proxy',
        description: `${p}: /api/v1/{proxy+} to the regions over the accelerator`,
        timeout: routeFunctionTimeout(this.apiDefinition, 'control-plane-proxy'),
        invokedBy: 'api-gateway',
        environment,
        bundleDefines: GLOBAL_PROXY_BUNDLE,
      });
      functions['inference-stream-proxy'] = new PlatformFunction(this, 'InferenceProxy', {
        entryName: 'inference-stream-proxy',
        description: `${p}: /inference/{proxy+} streamed from the regions over the accelerator`,
        timeout: routeFunctionTimeout(this.apiDefinition, 'inference-stream-proxy'),
        invokedBy: 'api-gateway',
        environment,
        bundleDefines: GLOBAL_PROXY_BUNDLE,
      });
      this.signingKeySecret.grantRead(functions['control-plane-proxy']);
      this.signingKeySecret.grantRead(functions['inference-stream-proxy']);
    }

    if (config.analyticsEnvironment.enabled) {
      this.studio = new StudioEnvironment(this, 'Studio', { projectName: p });
      // The user pool holds the studio's users: it follows removal_policy like the other data, and a
      // pool deleted with the stack cannot keep deletion protection on.
      if (removalPolicy === RemovalPolicy.DESTROY) {
        this.studio.userPool.applyRemovalPolicy(removalPolicy);
        (this.studio.userPool.node.defaultChild as CfnUserPool).deletionProtection = 'INACTIVE';
      }
      const studioLogin = new PlatformFunction(this, 'StudioLogin', {
        entryName: 'studio-login',
        description: `${p}: presigned analytics studio login URL for the caller's user profile`,
        timeout: routeFunctionTimeout(this.apiDefinition, 'studio-login'),
        invokedBy: 'api-gateway',
        environment: studioLoginEnvironment({ domainId: this.studio.domain.attrDomainId }),
      });
      studioLogin.addToRolePolicy(
        new PolicyStatement({
          actions: ['sagemaker:CreatePresignedDomainUrl'],
          resources: [
            this.formatArn({
              service: 'sagemaker',
              resource: 'user-profile',
              resourceName: `${this.studio.domain.attrDomainId}/*`,
            }),
          ],
        }),
      );
      functions['studio-login'] = studioLogin;
      NagSuppressions.addResourceSuppressions(
        studioLogin.role!,
        [
          {
            id: 'AwsSolutions-IAM5',
            reason:
              'Every user profile of the one studio domain: the caller is mapped to their own profile at run time',
            appliesTo: [
              { regex: '/^Resource::arn:<AWS::Partition>:sagemaker:.*:user-profile\\/<.*>\\/\\*$/g' },
            ],
          },
        ],
        true,
      );
    }
    this.functions = functions;
    // ---- the global REST API -------------------------------------------------------------------
    const policy = new PolicyDocument({
      statements: [
        new PolicyStatement({
          sid: 'AccountPrincipalsInvokeAllRoutes',
          principals: [new AnyPrincipal()],
          actions: ['execute-api:Invoke'],
          resources: ['execute-api:/*'],
          conditions: { StringEquals: { 'aws:PrincipalAccount': Aws.ACCOUNT_ID } },
        }),
        ...(config.analyticsEnvironment.enabled
          ? [
              new PolicyStatement({
                sid: 'AnyoneInvokesStudioGetRoutes',
                principals: [new AnyPrincipal()],
                actions: ['execute-api:Invoke'],
                resources: ['execute-api:/*/GET/studio/*'],
              }),
            ]
          : []),
      ],
    });
    this.api = new PlatformRestApi(this, 'GlobalApi', {
      definition: this.apiDefinition,
      restApiName: `${p}-global`,
      functions: functions,
      ...(this.studio ? { authorizers: { cognito: this.studio.authorizer } } : {}),
      policy,
      accessLogsRemovalPolicy: removalPolicy,
    });
    this.studio?.addLoginClient(`${this.api.api.url}studio/callback`);

    if (config.waf.enabled) {
      this.waf = new GlobalApiWaf(this, 'Waf', {
        name: `${p}-global-api`,
        logGroupName: wafLogGroupName(config),
        logsRemovalPolicy: removalPolicy,
        rateLimitPerIp: config.waf.rateLimitPerIp,
        maxBodySizeBytes: config.waf.maxBodySizeBytes,
        stageName: config.stage,
      });
      this.waf.associate('GlobalApiAssociation', this.api.api.deploymentStage);
    }

    // ---- outputs -------------------------------------------------------------------------------
    // Resolved by CloudFormation at deploy time, never a literal: the same template works in any partition.
    new CfnOutput(this, 'Partition', { value: Aws.PARTITION, description: 'Partition the stack runs in' });
    new CfnOutput(this, 'StageName', { value: config.stage, description: 'API Gateway stage name' });
    new CfnOutput(this, 'GlobalApiUrl', { value: this.api.api.url, description: 'Global API base URL' });
    new CfnOutput(this, 'SigningKeySecretArn', { value: this.signingKeySecret.secretArn });
    new CfnOutput(this, 'InternalCaSecretArn', { value: this.internalCaSecret.secretArn });
    new CfnOutput(this, 'AggregatorRoleArn', { value: this.aggregatorRole.roleArn });
    if (this.accelerator) {
      new CfnOutput(this, 'AcceleratorDnsName', { value: this.accelerator.dnsName });
    }

    // ---- monitoring (docs/operations.md): topic, alarms, composite, global dashboard ---------------
    if (config.monitoring.enabled) {
      this.monitoring = new GlobalMonitoring(this, 'Monitoring', {
        config,
        api: this.api.api,
        definition: this.apiDefinition,
        functions: this.functions,
        ...(this.waf ? { webAcl: this.waf.webAcl } : {}),
        tables: this.tables,
      });
    }
  }
}

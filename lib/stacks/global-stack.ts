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
 *   endpoints), and the function that publishes the outbox backlog once for every region (with
 *   monitoring on).
 * Tables, the API access logs and the WAF log group follow `removal_policy`; their fixed names carry
 * `resource_generation` (lib/names.ts).
 */
import { Aws, CfnOutput } from 'aws-cdk-lib';
import type { RemovalPolicy } from 'aws-cdk-lib';
import type { Accelerator, Listener } from 'aws-cdk-lib/aws-globalaccelerator';
import type { Role } from 'aws-cdk-lib/aws-iam';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { globalApiDefinition } from '../../contracts/api-routes.js';
import type { ApiDefinition, RouteHandler } from '../../contracts/api-routes.js';
import type { TableId } from '../../contracts/tables.js';
import { internalCaSecretName, signingKeySecretName, wafLogGroupName } from '../names.js';
import { dataRemovalPolicy } from '../retention.js';
import type { AcceleratorListenerParameters } from '../constructs/accelerator-listener-parameters.js';
import { GlobalApiWaf } from '../constructs/global-api-waf.js';
import { InternalCertificateAuthority } from '../constructs/internal-ca.js';
import type { PlatformFunction } from '../constructs/platform-function.js';
import { PlatformRestApi } from '../constructs/platform-rest-api.js';
import { SigningKeySecret } from '../constructs/signing-key-secret.js';
import type { StudioEnvironment } from '../constructs/studio-environment.js';
import { GlobalMonitoring } from '../monitoring/global-monitoring.js';
import { addGlobalAccelerator } from './global/accelerator.js';
import { addAggregatorRole } from './global/aggregator-role.js';
import { globalApiPolicy } from './global/api-policy.js';
import { addCentralTables } from './global/central-tables.js';
import { addAggregator, addGlobalProxies } from './global/edge-functions.js';
import { addStudio } from './global/studio.js';
import { addWebhookOutboxMetrics } from './global/webhook-outbox-metrics.js';
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
  /** Rotates the signing key (Secrets Manager rotation); its failed runs are alarmed. */
  readonly signingKeyRotation: PlatformFunction;
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

    // Every part is created in the stack itself (no wrapping construct): the logical IDs stay as they were.
    this.tables = addCentralTables(this, config, removalPolicy);

    // ---- envelope signing key and internal CA (replicated to every deployment region) ------------
    const signingKey = new SigningKeySecret(this, 'SigningKey', {
      projectName: p,
      secretName: signingKeySecretName(config),
      replicaRegions,
    });
    this.signingKeySecret = signingKey.secret;
    this.signingKeyRotation = signingKey.rotationFunction;
    const ca = new InternalCertificateAuthority(this, 'InternalCa', {
      projectName: p,
      secretName: internalCaSecretName(config),
      replicaRegions,
    });
    this.internalCaSecret = ca.secret;
    this.internalCaCertificatePem = ca.certificatePem;

    if (config.hasAccelerator) {
      const accelerator = addGlobalAccelerator(this, config);
      this.accelerator = accelerator.accelerator;
      this.acceleratorDnsName = accelerator.accelerator.dnsName;
      this.acceleratorListener = accelerator.listener;
      this.acceleratorListenerParameters = accelerator.listenerParameters;
    }
    this.aggregatorRole = addAggregatorRole(this, config);

    // ---- functions of the global API ------------------------------------------------------------
    this.apiDefinition = globalApiDefinition(config);
    const routeFunctions = this.addRouteFunctions(removalPolicy);
    this.functions = routeFunctions.functions;
    if (routeFunctions.studio) this.studio = routeFunctions.studio;

    // ---- the global REST API and its web ACL -----------------------------------------------------
    this.api = new PlatformRestApi(this, 'GlobalApi', {
      definition: this.apiDefinition,
      restApiName: `${p}-global`,
      functions: this.functions,
      ...(this.studio ? { authorizers: { cognito: this.studio.authorizer } } : {}),
      policy: globalApiPolicy(config.analyticsEnvironment.enabled),
      accessLogsRemovalPolicy: removalPolicy,
    });
    this.studio?.addLoginClient(`${this.api.api.url}studio/callback`);
    if (config.waf.enabled) this.waf = this.addWaf(removalPolicy);

    this.addOutputs();
    // ---- monitoring (docs/operations.md): topic, alarms, composite, global dashboard ---------------
    if (config.monitoring.enabled) this.monitoring = this.addMonitoring();
  }

  /** The delivery outbox (one central table): its backlog is published and alarmed here only. */
  private outboxTable(): TableV2 {
    const table = this.tables.get('webhookDeliveries');
    if (!table) throw new Error(`${this.stackName}: no webhook delivery outbox table`);
    return table;
  }

  /** The aggregator; the proxies (with an accelerator); the studio and its login function (when enabled). */
  private addRouteFunctions(removalPolicy: RemovalPolicy): {
    readonly functions: Partial<Record<RouteHandler, PlatformFunction>>;
    readonly studio?: StudioEnvironment;
  } {
    const { config, apiDefinition: definition } = this;
    const functions: Partial<Record<RouteHandler, PlatformFunction>> = {
      aggregator: addAggregator(this, config, definition, this.aggregatorRole),
    };
    if (
      this.acceleratorDnsName !== undefined &&
      this.routesUse('control-plane-proxy', 'inference-stream-proxy')
    ) {
      const proxies = addGlobalProxies(this, {
        config,
        definition,
        acceleratorDnsName: this.acceleratorDnsName,
        caPem: this.internalCaCertificatePem,
        signingKeySecret: this.signingKeySecret,
      });
      functions['control-plane-proxy'] = proxies.controlPlane;
      functions['inference-stream-proxy'] = proxies.inference;
    }
    if (!config.analyticsEnvironment.enabled) return { functions };
    const { studio, login } = addStudio(this, config.projectName, definition, removalPolicy);
    functions['studio-login'] = login;
    return { functions, studio };
  }

  /** Whether a route of the global API is served by one of `handlers`. */
  private routesUse(...handlers: RouteHandler[]): boolean {
    return this.apiDefinition.routes.some(
      (r) => r.integration.type === 'lambda' && handlers.includes(r.integration.handler),
    );
  }

  /** The web ACL of the global API's stage. */
  private addWaf(removalPolicy: RemovalPolicy): GlobalApiWaf {
    const { config } = this;
    const waf = new GlobalApiWaf(this, 'Waf', {
      name: `${config.projectName}-global-api`,
      logGroupName: wafLogGroupName(config),
      logsRemovalPolicy: removalPolicy,
      rateLimitPerIp: config.waf.rateLimitPerIp,
      maxBodySizeBytes: config.waf.maxBodySizeBytes,
      stageName: config.stage,
    });
    waf.associate('GlobalApiAssociation', this.api.api.deploymentStage);
    return waf;
  }

  private addMonitoring(): GlobalMonitoring {
    return new GlobalMonitoring(this, 'Monitoring', {
      config: this.config,
      api: this.api.api,
      definition: this.apiDefinition,
      functions: this.functions,
      ...(this.waf ? { webAcl: this.waf.webAcl } : {}),
      tables: this.tables,
      signingKeyRotation: this.signingKeyRotation,
      outboxMetrics: addWebhookOutboxMetrics(this, this.config.projectName, this.outboxTable()),
    });
  }

  private addOutputs(): void {
    // Resolved by CloudFormation at deploy time, never a literal: the same template works in any partition.
    new CfnOutput(this, 'Partition', { value: Aws.PARTITION, description: 'Partition the stack runs in' });
    new CfnOutput(this, 'StageName', { value: this.config.stage, description: 'API Gateway stage name' });
    new CfnOutput(this, 'GlobalApiUrl', { value: this.api.api.url, description: 'Global API base URL' });
    new CfnOutput(this, 'SigningKeySecretArn', { value: this.signingKeySecret.secretArn });
    new CfnOutput(this, 'InternalCaSecretArn', { value: this.internalCaSecret.secretArn });
    new CfnOutput(this, 'AggregatorRoleArn', { value: this.aggregatorRole.roleArn });
    if (this.accelerator) {
      new CfnOutput(this, 'AcceleratorDnsName', { value: this.accelerator.dnsName });
    }
  }
}

// `<project>-global` (lib/stacks/global-stack.ts) against docs/global-stack.md: each rule is asserted
// once, against the synthesized template; cdk-nag on every configuration.
// The stack is built on its own (no regional stacks) with bundling skipped, except in the one test that
// proves the functions bundle locally without Docker.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { addGlobalStack } from '../../lib/app-builder.js';
import { loadConfig } from '../../lib/config.js';
import { InternalCertificate } from '../../lib/constructs/internal-ca.js';
import { functionNodeOptions } from '../../lib/constructs/platform-function.js';
import { internalCaSecretName } from '../../lib/names.js';
import {
  addNagPacks,
  apiResourcePaths,
  cdkJsonContext,
  nagErrors,
  stageMethodSettings,
} from '../support/stack-templates.js';
import { assemblyOutdir } from '../support/suite-temp-dir.js';

type Json = Record<string, unknown>;
interface Resource {
  Type: string;
  Properties: Json;
  DeletionPolicy?: string;
}

function synthGlobal(context: Json, options: { bundle?: boolean } = {}) {
  const outdir = assemblyOutdir();
  const app = new App({
    analyticsReporting: false,
    outdir,
    // Bundling is proven once below; elsewhere it would only make the suite slower.
    context: options.bundle ? {} : { 'aws:cdk:bundling-stacks': [] },
  });
  const config = loadConfig(context);
  const stack = addGlobalStack(app, config);
  const template = Template.fromStack(stack);
  const resources = template.toJSON().Resources as Record<string, Resource>;
  const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
  const single = (type: string): Resource => {
    const found = ofType(type);
    expect(found).toHaveLength(1);
    return found[0]![1];
  };
  return { app, outdir, config, stack, template, resources, ofType, single };
}
type Synth = ReturnType<typeof synthGlobal>;

/** Functions and roles the CDK makes: provider frameworks and the AwsCustomResource singleton. */
const cdkMade = (logicalId: string): boolean =>
  logicalId.includes('framework') || logicalId.startsWith('AWS679f53fac002430cb0da5b7982bd2287');

const CONFIGS: Record<string, Json> = {
  'default (cdk.json)': cdkJsonContext(),
  'three regions': { regions: ['us-east-1', 'eu-west-1', 'ap-southeast-2'] },
  'aws-us-gov partition': { global_region: 'us-gov-west-1', regions: ['us-gov-west-1', 'us-gov-east-1'] },
  'analytics environment on': { analytics_environment: { enabled: true } },
  'regional API enabled': { api_gateway: { regional_api_enabled: true } },
};
const built: Record<string, Synth> = Object.fromEntries(
  Object.entries(CONFIGS).map(([name, context]) => [name, synthGlobal(context)]),
);
const byName = (name: string): Synth => built[name]!;
const commercial = byName('default (cdk.json)');
const gov = byName('aws-us-gov partition');
const analytics = byName('analytics environment on');

// The snapshot (cdk.json), what each variant changes, and cdk-nag of every variant: test/infra/app.test.ts.

// ---- the global REST API ----------------------------------------------------------------------

/** Each method as `METHOD /path` → what the specification fixes about it. */
function routesOf(s: Synth): Record<string, Json> {
  const paths = apiResourcePaths(s.template);
  // Fn::GetAtt RootResourceId (no Ref): the root resource.
  const pathOf = (ref: unknown): string => paths.get((ref as { Ref?: string }).Ref ?? '') ?? '';
  const functionName = (uri: unknown): string => {
    const parts = (uri as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
    const getAtt = parts.find((p) => typeof p === 'object' && p !== null && 'Fn::GetAtt' in p) as {
      'Fn::GetAtt': [string, string];
    };
    const fn = s.resources[getAtt['Fn::GetAtt'][0]]!.Properties;
    return (fn.Environment as { Variables: Record<string, string> }).Variables.POWERTOOLS_SERVICE_NAME!;
  };
  const routes: Record<string, Json> = {};
  for (const [, method] of s.ofType('AWS::ApiGateway::Method')) {
    const p = method.Properties;
    const integration = p.Integration as Json;
    const uri = JSON.stringify(integration.Uri ?? '');
    routes[`${String(p.HttpMethod)} ${pathOf(p.ResourceId)}`] = {
      operationId: p.OperationName,
      auth: p.AuthorizationType,
      integration:
        integration.Type === 'MOCK'
          ? 'MOCK'
          : {
              fn: functionName(integration.Uri),
              timeoutMs: integration.TimeoutInMillis,
              ...(integration.ResponseTransferMode === 'STREAM'
                ? {
                    stream:
                      uri.includes('/2021-11-15/functions/') &&
                      uri.includes('/response-streaming-invocations'),
                  }
                : { buffered: uri.includes('/2015-03-31/functions/') && uri.endsWith('/invocations"]]}') }),
            },
    };
  }
  return routes;
}

const aggregate = (operationId: string) => ({
  operationId,
  auth: 'AWS_IAM',
  integration: { fn: 'aggregator', timeoutMs: 29_000, buffered: true },
});
const AGGREGATE_ROUTES = {
  'GET /api/v1/global/health': aggregate('getApiV1GlobalHealth'),
  'GET /api/v1/global/jobs': aggregate('getApiV1GlobalJobs'),
  'DELETE /api/v1/global/jobs': aggregate('deleteApiV1GlobalJobs'),
  'GET /api/v1/global/status': aggregate('getApiV1GlobalStatus'),
};
const controlPlane = (operationId: string) => ({
  operationId,
  auth: 'AWS_IAM',
  integration: { fn: 'control-plane-proxy', timeoutMs: 29_000, buffered: true },
});
const inference = (operationId: string) => ({
  operationId,
  auth: 'AWS_IAM',
  integration: { fn: 'inference-stream-proxy', timeoutMs: 900_000, stream: true },
});
const ACCELERATOR_ROUTES = {
  'GET /api/v1/{proxy+}': controlPlane('getApiV1Proxy'),
  'POST /api/v1/{proxy+}': controlPlane('postApiV1Proxy'),
  'PUT /api/v1/{proxy+}': controlPlane('putApiV1Proxy'),
  'PATCH /api/v1/{proxy+}': controlPlane('patchApiV1Proxy'),
  'DELETE /api/v1/{proxy+}': controlPlane('deleteApiV1Proxy'),
  'GET /inference/{proxy+}': inference('getInferenceProxy'),
  'POST /inference/{proxy+}': inference('postInferenceProxy'),
  'HEAD /inference/{proxy+}': inference('headInferenceProxy'),
};
const STUDIO_ROUTES = {
  'GET /studio/callback': { operationId: 'getStudioCallback', auth: 'NONE', integration: 'MOCK' },
  'GET /studio/login': {
    operationId: 'getStudioLogin',
    auth: 'COGNITO_USER_POOLS',
    integration: { fn: 'studio-login', timeoutMs: 29_000, buffered: true },
  },
};

describe('global API routes (docs/global-stack.md)', () => {
  test('commercial partition: aggregate routes and the accelerator catch-alls; buffered 29 s, inference 900 s streamed', () => {
    expect(routesOf(commercial)).toEqual({ ...AGGREGATE_ROUTES, ...ACCELERATOR_ROUTES });
  });

  test('aws-us-gov: only the aggregate routes (no accelerator, so no catch-alls)', () => {
    expect(routesOf(gov)).toEqual(AGGREGATE_ROUTES);
  });

  test('analytics environment: /studio/login behind the Cognito authorizer, /studio/callback an unauthenticated mock', () => {
    expect(routesOf(analytics)).toEqual({ ...AGGREGATE_ROUTES, ...ACCELERATOR_ROUTES, ...STUDIO_ROUTES });
    const login = analytics
      .ofType('AWS::ApiGateway::Method')
      .find(([, m]) => m.Properties.OperationName === 'getStudioLogin');
    const authorizerId = (login![1].Properties.AuthorizerId as { Ref: string }).Ref;
    expect(analytics.resources[authorizerId]!.Properties).toMatchObject({
      Type: 'COGNITO_USER_POOLS',
      IdentitySource: 'method.request.header.Authorization',
      ProviderARNs: [{ 'Fn::GetAtt': [expect.stringMatching(/^StudioUserPool/), 'Arn'] }],
    });
  });

  test('the callback mock answers an empty 200', () => {
    const callback = analytics
      .ofType('AWS::ApiGateway::Method')
      .find(([, m]) => m.Properties.OperationName === 'getStudioCallback');
    expect(callback![1].Properties.Integration).toEqual({
      Type: 'MOCK',
      RequestTemplates: { 'application/json': '{"statusCode": 200}' },
      IntegrationResponses: [{ StatusCode: '200', ResponseTemplates: { 'application/json': '' } }],
    });
    expect(callback![1].Properties.MethodResponses).toEqual([{ StatusCode: '200' }]);
  });

  test('endpoint type EDGE in the commercial partition; REGIONAL where edge-optimized APIs do not exist', () => {
    expect(commercial.single('AWS::ApiGateway::RestApi').Properties.EndpointConfiguration).toEqual({
      Types: ['EDGE'],
    });
    expect(gov.single('AWS::ApiGateway::RestApi').Properties.EndpointConfiguration).toEqual({
      Types: ['REGIONAL'],
    });
  });

  test('stage from config: throttling 1000 r/s burst 2000, logging INFO, data trace off, metrics on, X-Ray on', () => {
    const stage = commercial.single('AWS::ApiGateway::Stage').Properties;
    expect(stage.StageName).toBe('prod');
    expect(stage.TracingEnabled).toBe(true);
    expect(stage.MethodSettings).toEqual([stageMethodSettings(1000, 2000)]);
    const custom = synthGlobal({
      stage: 'v2',
      api_gateway: { throttling_rate_limit: 50, throttling_burst_limit: 75 },
    });
    expect(custom.single('AWS::ApiGateway::Stage').Properties).toMatchObject({
      StageName: 'v2',
      MethodSettings: [expect.objectContaining({ ThrottlingRateLimit: 50, ThrottlingBurstLimit: 75 })],
    });
  });

  test('access logs are JSON lines of request identity and outcome, to a retained log group', () => {
    const stage = commercial.single('AWS::ApiGateway::Stage').Properties;
    const setting = stage.AccessLogSetting as {
      Format: string;
      DestinationArn: { 'Fn::GetAtt': [string, string] };
    };
    const fields = JSON.parse(setting.Format) as Record<string, string>;
    expect(fields).toMatchObject({
      requestId: '$context.requestId',
      status: '$context.status',
      principal: '$context.identity.userArn',
    });
    // Nothing that could carry a signature, token or body.
    expect(Object.values(fields).filter((v) => /header|body|querystring|authorization/i.test(v))).toEqual([]);
    expect(commercial.resources[setting.DestinationArn['Fn::GetAtt'][0]]).toMatchObject({
      Type: 'AWS::Logs::LogGroup',
      DeletionPolicy: 'Retain',
    });
  });

  test('resource policy: account principals on every route; any principal only on GET /studio/* with analytics', () => {
    const accountStatement = {
      Sid: 'AccountPrincipalsInvokeAllRoutes',
      Effect: 'Allow',
      Principal: { AWS: '*' },
      Action: 'execute-api:Invoke',
      Resource: 'execute-api:/*',
      Condition: { StringEquals: { 'aws:PrincipalAccount': { Ref: 'AWS::AccountId' } } },
    };
    const policy = (s: Synth) => (s.single('AWS::ApiGateway::RestApi').Properties.Policy as Json).Statement;
    expect(policy(commercial)).toEqual([accountStatement]);
    expect(policy(gov)).toEqual([accountStatement]);
    expect(policy(analytics)).toEqual([
      accountStatement,
      {
        Sid: 'AnyoneInvokesStudioGetRoutes',
        Effect: 'Allow',
        Principal: { AWS: '*' },
        Action: 'execute-api:Invoke',
        Resource: 'execute-api:/*/GET/studio/*',
      },
    ]);
  });
});

// ---- WAF -------------------------------------------------------------------------------------

describe('WAF web ACL (docs/global-stack.md)', () => {
  const MANAGED = [
    'AWSManagedRulesCommonRuleSet',
    'AWSManagedRulesKnownBadInputsRuleSet',
    'AWSManagedRulesSQLiRuleSet',
    'AWSManagedRulesLinuxRuleSet',
    'AWSManagedRulesAmazonIpReputationList',
    'AWSManagedRulesAnonymousIpList',
  ];
  const rules = (s: Synth) => s.single('AWS::WAFv2::WebACL').Properties.Rules as Json[];

  test('priority order: 0 rate limit, 1 body size, 2-7 the managed groups', () => {
    expect(rules(commercial).map((r) => [r.Priority, r.Name])).toEqual([
      [0, 'RateLimitPerIp'],
      [1, 'BodySizeLimitNonInference'],
      ...MANAGED.map((name, i) => [i + 2, name]),
    ]);
  });

  test('0: per-IP rate limit from config (5-minute window), block', () => {
    expect(rules(commercial)[0]).toMatchObject({
      Action: { Block: {} },
      Statement: { RateBasedStatement: { Limit: 2000, AggregateKeyType: 'IP', EvaluationWindowSec: 300 } },
    });
  });

  test('1: body over the configured cap on any non-inference path, block; oversize bodies count as over', () => {
    expect(rules(commercial)[1]).toMatchObject({
      Action: { Block: {} },
      Statement: {
        AndStatement: {
          Statements: [
            {
              NotStatement: {
                Statement: {
                  ByteMatchStatement: {
                    FieldToMatch: { UriPath: {} },
                    PositionalConstraint: 'STARTS_WITH',
                    SearchString: '/prod/inference/',
                    TextTransformations: [
                      { Priority: 0, Type: 'URL_DECODE' },
                      { Priority: 1, Type: 'NORMALIZE_PATH' },
                    ],
                  },
                },
              },
            },
            {
              SizeConstraintStatement: {
                FieldToMatch: { Body: { OversizeHandling: 'MATCH' } },
                ComparisonOperator: 'GT',
                Size: 65_536,
              },
            },
          ],
        },
      },
    });
  });

  test('2-7: managed groups at their default actions (only the body-size rule superseded by rule 1 counts)', () => {
    for (const rule of rules(commercial).slice(2)) {
      expect(rule.OverrideAction).toEqual({ None: {} });
      expect(rule.Action).toBeUndefined();
      const group = (rule.Statement as { ManagedRuleGroupStatement: Json }).ManagedRuleGroupStatement;
      expect(group.VendorName).toBe('AWS');
      expect(group.RuleActionOverrides).toEqual(
        group.Name === 'AWSManagedRulesCommonRuleSet'
          ? [{ Name: 'SizeRestrictions_BODY', ActionToUse: { Count: {} } }]
          : undefined,
      );
    }
  });

  test('regional scope, allow by default, WAF sees as much of the body as the cap needs, logs redact Authorization', () => {
    const acl = commercial.single('AWS::WAFv2::WebACL').Properties;
    expect(acl).toMatchObject({
      Scope: 'REGIONAL',
      DefaultAction: { Allow: {} },
      AssociationConfig: { RequestBody: { API_GATEWAY: { DefaultSizeInspectionLimit: 'KB_64' } } },
    });
    expect(commercial.single('AWS::WAFv2::LoggingConfiguration').Properties.RedactedFields).toEqual([
      { SingleHeader: { Name: 'authorization' } },
    ]);
  });

  test('limits come from config', () => {
    const custom = synthGlobal({ waf: { rate_limit_per_ip: 300, max_body_size_bytes: 20_000 } });
    const [rate, body] = rules(custom);
    expect(rate).toMatchObject({ Statement: { RateBasedStatement: { Limit: 300 } } });
    expect(JSON.stringify(body)).toContain('"Size":20000');
    expect(custom.single('AWS::WAFv2::WebACL').Properties.AssociationConfig).toEqual({
      RequestBody: { API_GATEWAY: { DefaultSizeInspectionLimit: 'KB_32' } },
    });
  });

  test('associated with the global API stage; absent when waf.enabled is false', () => {
    const association = commercial.single('AWS::WAFv2::WebACLAssociation').Properties;
    expect(association.ResourceArn).toEqual({
      'Fn::Join': [
        '',
        [
          'arn:',
          { Ref: 'AWS::Partition' },
          ':apigateway:us-east-2::/restapis/',
          { Ref: expect.stringMatching(/^GlobalApi/) },
          '/stages/',
          { Ref: expect.stringMatching(/^GlobalApiDeploymentStageprod/) },
        ],
      ],
    });
    expect(association.WebACLArn).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^WafWebAcl/), 'Arn'] });
    const off = synthGlobal({ waf: { enabled: false } });
    expect(off.ofType('AWS::WAFv2::WebACL')).toEqual([]);
    expect(off.ofType('AWS::WAFv2::WebACLAssociation')).toEqual([]);
  });
});

// ---- accelerator, proxies, aggregator ----------------------------------------------------------

describe('Global Accelerator and the global proxies', () => {
  test('TCP/443 pass-through listener in the commercial partition; endpoint groups come from the regional stacks', () => {
    expect(commercial.single('AWS::GlobalAccelerator::Listener').Properties).toMatchObject({
      Protocol: 'TCP',
      PortRanges: [{ FromPort: 443, ToPort: 443 }],
    });
    expect(commercial.ofType('AWS::GlobalAccelerator::EndpointGroup')).toEqual([]);
    expect(commercial.stack.acceleratorListener).toBeDefined();
  });

  test('aws-us-gov: no accelerator and no accelerator proxies', () => {
    expect(gov.ofType('AWS::GlobalAccelerator::Accelerator')).toEqual([]);
    expect(gov.stack.acceleratorListener).toBeUndefined();
    const services = gov
      .ofType('AWS::Lambda::Function')
      .map(([, f]) => (f.Properties.Environment as { Variables: Json }).Variables.POWERTOOLS_SERVICE_NAME);
    expect(services).not.toContain('control-plane-proxy');
    expect(services).not.toContain('inference-stream-proxy');
  });

  test('the proxies reach the regions through the accelerator with the internal CA and the signing key', () => {
    for (const [service, timeout] of [
      ['control-plane-proxy', 30],
      ['inference-stream-proxy', 900],
    ] as const) {
      commercial.template.hasResourceProperties('AWS::Lambda::Function', {
        Timeout: timeout,
        Environment: {
          Variables: Match.objectLike({
            POWERTOOLS_SERVICE_NAME: service,
            MODE: 'global',
            BACKEND_HOSTNAME: 'backend.gco.gco.internal',
            BACKEND_PORT: '443',
            ACCELERATOR_DNS: { 'Fn::GetAtt': [Match.stringLikeRegexp('^Accelerator'), 'DnsName'] },
            INTERNAL_CA_PEM: { 'Fn::GetAtt': [Match.stringLikeRegexp('^InternalCa'), 'CertificatePem'] },
            SIGNING_KEY_SECRET_ARN: { Ref: Match.stringLikeRegexp('^SigningKeySecret') },
          }),
        },
      });
    }
  });

  test('aggregator: named role, discovery path and regions, 30 s (over the 29 s integration)', () => {
    const three = byName('three regions');
    three.template.hasResourceProperties('AWS::Lambda::Function', {
      Timeout: 30,
      Role: { 'Fn::GetAtt': [Match.stringLikeRegexp('^AggregatorRole'), 'Arn'] },
      Environment: {
        Variables: Match.objectLike({
          REGIONAL_API_PARAMETER_PATH: '/gco/regional-api',
          REGIONS: 'us-east-1,eu-west-1,ap-southeast-2',
        }),
      },
    });
    three.template.hasResourceProperties('AWS::IAM::Role', { RoleName: 'gco-aggregator' });
  });

  test('aggregator role: discovery parameters and the five aggregate routes of each regional API, nothing else', () => {
    const three = byName('three regions');
    const [, policy] = three.ofType('AWS::IAM::Policy').find(([id]) => id.startsWith('AggregatorRole'))!;
    const statements = (policy.Properties.PolicyDocument as { Statement: Json[] }).Statement;
    const arn = (service: string, region: string, resource: string) => ({
      'Fn::Join': [
        '',
        ['arn:', { Ref: 'AWS::Partition' }, `:${service}:${region}:`, { Ref: 'AWS::AccountId' }, resource],
      ],
    });
    const routes = [
      'DELETE/api/v1/jobs',
      'GET/api/v1/health',
      'GET/api/v1/jobs',
      'GET/api/v1/policy',
      'GET/api/v1/status',
    ];
    expect(statements.filter((st) => st.Sid !== undefined)).toEqual([
      {
        Sid: 'DiscoverRegionalApis',
        Effect: 'Allow',
        Action: 'ssm:GetParametersByPath',
        Resource: [
          arn('ssm', 'us-east-2', ':parameter/gco/regional-api'),
          arn('ssm', 'us-east-2', ':parameter/gco/regional-api/*'),
        ],
      },
      {
        Sid: 'InvokeRegionalAggregateRoutes',
        Effect: 'Allow',
        Action: 'execute-api:Invoke',
        Resource: ['us-east-1', 'eu-west-1', 'ap-southeast-2'].flatMap((region) =>
          routes.map((route) => arn('execute-api', region, `:*/prod/${route}`)),
        ),
      },
    ]);
  });
});

// ---- secrets, tables, functions, IAM -------------------------------------------------------------

describe('secrets', () => {
  const secretNamed = (s: Synth, name: string) =>
    s.ofType('AWS::SecretsManager::Secret').find(([, r]) => r.Properties.Name === name)![1].Properties;

  test('signing key {"current": <random>} replicated to every other deployment region, rotated every 30 days', () => {
    expect(secretNamed(byName('three regions'), 'gco/signing-key')).toMatchObject({
      GenerateSecretString: { SecretStringTemplate: '{}', GenerateStringKey: 'current' },
      ReplicaRegions: [{ Region: 'us-east-1' }, { Region: 'eu-west-1' }, { Region: 'ap-southeast-2' }],
    });
    // The global region holds the primary; a deployment region that is also the global one is not a replica.
    expect(secretNamed(gov, 'gco/signing-key').ReplicaRegions).toEqual([{ Region: 'us-gov-east-1' }]);
    const rotation = commercial.single('AWS::SecretsManager::RotationSchedule').Properties;
    expect(rotation.RotationRules).toEqual({ ScheduleExpression: 'rate(30 days)' });
    const fnId = (rotation.RotationLambdaARN as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
    expect(commercial.resources[fnId]!.Properties).toMatchObject({
      Timeout: 30,
      Environment: { Variables: { POWERTOOLS_SERVICE_NAME: 'signing-key-rotation' } },
    });
  });

  test('internal CA secret replicated like the signing key and filled by the custom resource', () => {
    expect(secretNamed(byName('three regions'), 'gco/internal-ca').ReplicaRegions).toHaveLength(3);
    expect(commercial.single('Custom::InternalCa').Properties).toMatchObject({
      Kind: 'CertificateAuthority',
      SecretId: { Ref: expect.stringMatching(/^InternalCaSecret/) },
    });
  });
});

describe('central tables', () => {
  const NAMES = [
    'gco-job-queue',
    'gco-job-templates',
    'gco-webhooks',
    'gco-webhook-deliveries',
    'gco-inference-endpoints',
  ];

  test('job queue, templates, webhooks (+ delivery outbox), inference endpoints: encrypted, PITR, deletion protection', () => {
    const tables = commercial.ofType('AWS::DynamoDB::GlobalTable').map(([, t]) => t);
    expect(tables.map((t) => t.Properties.TableName)).toEqual(NAMES);
    for (const table of tables) {
      expect(table.Properties.SSESpecification).toEqual({ SSEEnabled: true, SSEType: 'KMS' });
      expect(table.Properties.Replicas).toEqual([
        expect.objectContaining({
          Region: 'us-east-2',
          DeletionProtectionEnabled: true,
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        }),
      ]);
      expect(table.DeletionPolicy).toBe('Retain');
    }
  });

  test('PITR and deletion protection follow config; retention follows removal_policy, not protection', () => {
    const off = synthGlobal({ tables: { deletion_protection: false, point_in_time_recovery: false } });
    for (const [, table] of off.ofType('AWS::DynamoDB::GlobalTable')) {
      expect(table.Properties.Replicas).toEqual([
        expect.objectContaining({
          DeletionProtectionEnabled: false,
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: false },
        }),
      ]);
      expect(table.DeletionPolicy).toBe('Retain');
    }
  });
});

describe('functions and IAM', () => {
  test('every platform function: Node.js 24 on arm64 with X-Ray', () => {
    const platform = analytics
      .ofType('AWS::Lambda::Function')
      .filter(([id]) => !cdkMade(id))
      .map(([, f]) => f.Properties);
    // Key rotation, internal CA, aggregator, the two proxies, studio login, the webhook outbox sampler.
    expect(platform).toHaveLength(7);
    for (const fn of platform) {
      expect(fn).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        TracingConfig: { Mode: 'Active' },
      });
    }
  });

  test('no policy grants a wildcard action; no function role carries AWSLambdaBasicExecutionRole', () => {
    for (const s of [commercial, analytics, gov]) {
      for (const [, policy] of s.ofType('AWS::IAM::Policy')) {
        for (const st of (policy.Properties.PolicyDocument as { Statement: { Action: string | string[] }[] })
          .Statement) {
          for (const action of [st.Action].flat()) expect(action).not.toMatch(/\*/);
        }
      }
      const basic = s
        .ofType('AWS::IAM::Role')
        .filter(
          ([id, role]) =>
            !cdkMade(id) && JSON.stringify(role.Properties).includes('AWSLambdaBasicExecutionRole'),
        );
      expect(basic).toEqual([]);
    }
  });

  test('the proxies may read the signing key and nothing else beyond their logs and traces', () => {
    const [, policy] = commercial
      .ofType('AWS::IAM::Policy')
      .find(([id]) => id.startsWith('ControlPlaneProxyRole'))!;
    const statements = (policy.Properties.PolicyDocument as { Statement: Json[] }).Statement;
    expect(statements.map((st) => [st.Action, st.Resource])).toEqual([
      [['xray:PutTraceSegments', 'xray:PutTelemetryRecords'], '*'],
      [
        ['logs:CreateLogStream', 'logs:PutLogEvents'],
        { 'Fn::GetAtt': [expect.stringMatching(/^ControlPlaneProxyLogs/), 'Arn'] },
      ],
      [
        ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'],
        { Ref: expect.stringMatching(/^SigningKeySecret/) },
      ],
    ]);
  });

  test('studio login may presign URLs only for profiles of its own domain', () => {
    analytics.template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Action: 'sagemaker:CreatePresignedDomainUrl',
            Effect: 'Allow',
            Resource: {
              'Fn::Join': [
                '',
                Match.arrayWith([
                  ':user-profile/',
                  { 'Fn::GetAtt': [Match.stringLikeRegexp('^StudioDomain'), 'DomainId'] },
                  '/*',
                ]),
              ],
            },
          },
        ]),
      },
    });
  });
});

test('functions bundle with the local esbuild (no Docker): minified ESM with a source map', () => {
  const s = synthGlobal(cdkJsonContext(), { bundle: true });
  const functions = s
    .ofType('AWS::Lambda::Function')
    .filter(([id]) => !cdkMade(id))
    .map(([, f]) => ({
      hash: String(f.Properties.Code && JSON.stringify(f.Properties.Code)).match(/([0-9a-f]{64})\.zip/)?.[1],
      env: (f.Properties.Environment as { Variables: Record<string, string> }).Variables,
    }));
  // Key rotation, internal CA, aggregator, the two proxies, the webhook outbox sampler.
  expect(functions).toHaveLength(6);
  for (const { hash, env } of functions) {
    const dir = join(s.outdir, `asset.${hash!}`);
    const map = JSON.parse(readFileSync(join(dir, 'index.mjs.map'), 'utf8')) as Json;
    // Sources by path, without their text (docs/edge-lambdas.md, "Bundles and init").
    expect(map['sources']).toEqual(expect.arrayContaining([expect.stringMatching(/^\.\.\/.*lambda\//)]));
    expect(map['sourcesContent']).toBeUndefined();
    const code = readFileSync(join(dir, 'index.mjs'), 'utf8');
    // Minified: whole modules on a handful of very long lines.
    expect(code.length / code.split('\n').length).toBeGreaterThan(2000);
    const service = env['POWERTOOLS_SERVICE_NAME']!;
    // --enable-source-maps only where no user waits on a cold start.
    expect(env['NODE_OPTIONS']).toBe(functionNodeOptions(service));
    expect(env['NODE_OPTIONS'] !== undefined).toBe(['internal-ca', 'signing-key-rotation'].includes(service));
    // The global proxies' bundles leave out the regional lookup's SSM and ELBv2 clients (the aggregator,
    // which reads SSM, shows the marker is there when the client is).
    const ssm = /AmazonSSM/.test(code);
    const elbv2 = /elasticloadbalancing/.test(code);
    if (service === 'control-plane-proxy' || service === 'inference-stream-proxy') {
      expect({ service, ssm, elbv2 }).toEqual({ service, ssm: false, elbv2: false });
    }
    if (service === 'aggregator') expect(ssm).toBe(true);
  }
}, 120_000);

test('InternalCertificate (for the regional stacks): ACM import, key-pair secret, CA replica by name; cdk-nag clean', () => {
  const app = new App({
    analyticsReporting: false,
    outdir: assemblyOutdir(),
    context: { 'aws:cdk:bundling-stacks': [] },
  });
  addNagPacks(app);
  const stack = new Stack(app, 'regional', { env: { region: 'eu-west-1' } });
  const cert = new InternalCertificate(stack, 'Tls', {
    projectName: 'gco',
    metricName: 'alb',
    caSecretName: internalCaSecretName(loadConfig({})),
    dnsNames: ['backend.gco.gco.internal'],
  });
  const template = Template.fromStack(stack);
  template.hasResourceProperties('Custom::InternalCa', {
    Kind: 'Certificate',
    CaSecretId: 'gco/internal-ca',
    DnsNames: ['backend.gco.gco.internal'],
    KeyPairSecretId: { Ref: Match.stringLikeRegexp('^TlsKeyPair') },
  });
  expect(stack.resolve(cert.certificate.certificateArn)).toEqual({
    'Fn::GetAtt': [expect.stringMatching(/^Tls/), 'CertificateArn'],
  });
  expect(nagErrors(stack)).toEqual([]);
});

// ---- issue 16: accelerator regions, weak listener reference, endpoint type ------------------------

/** The listener-ARN writers (AwsCustomResource SSM PutParameter), by the region each one writes to. */
function listenerWriters(s: Synth): Map<string, { create: Json; remove: Json; statements: Json[] }> {
  const writers = new Map<string, { create: Json; remove: Json; statements: Json[] }>();
  for (const [id, r] of s.ofType('Custom::AWS')) {
    if (!id.startsWith('ListenerArnParameters')) continue;
    // Create embeds the listener ARN (a token): rendered as "<token>" to parse the rest.
    const create = JSON.parse(flatten(r.Properties.Create)) as Json;
    const remove = JSON.parse(flatten(r.Properties.Delete)) as Json;
    const [, policy] = s
      .ofType('AWS::IAM::Policy')
      .find(([policyId]) => policyId.startsWith(`${id.replace(/[0-9A-F]{8}$/, '')}CustomResourcePolicy`))!;
    const statements = (policy.Properties.PolicyDocument as { Statement: Json[] }).Statement;
    writers.set(create.region as string, { create, remove, statements });
  }
  return writers;
}

/** `Fn::Join` text with every reference rendered as `<token>`. */
function flatten(value: unknown): string {
  if (typeof value === 'string') return value;
  const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (!join) return '<token>';
  return join[1].map(flatten).join(join[0]);
}

describe('accelerator regions (lib/accelerator-regions.ts) and the weak listener reference', () => {
  const mixed = synthGlobal({ regions: ['us-east-1', 'mx-central-1'] });
  const unsupported = synthGlobal({ regions: ['mx-central-1', 'ap-southeast-7'] });

  test('the listener ARN is written into /gco/accelerator-listener-arn of exactly the accelerator regions', () => {
    const three = byName('three regions');
    expect([...listenerWriters(three).keys()].sort()).toEqual(['ap-southeast-2', 'eu-west-1', 'us-east-1']);
    expect([...listenerWriters(mixed).keys()]).toEqual(['us-east-1']);
    const writer = listenerWriters(mixed).get('us-east-1')!;
    expect(writer.create).toEqual({
      service: 'SSM',
      action: 'putParameter',
      region: 'us-east-1',
      parameters: {
        Name: '/gco/accelerator-listener-arn',
        Value: '<token>',
        Type: 'String',
        Overwrite: true,
        Description: "gco accelerator listener (the regional stack's endpoint group)",
      },
      physicalResourceId: { id: 'us-east-1:/gco/accelerator-listener-arn' },
    });
    expect(writer.remove).toMatchObject({
      action: 'deleteParameter',
      region: 'us-east-1',
      parameters: { Name: '/gco/accelerator-listener-arn' },
      ignoreErrorCodesMatching: 'ParameterNotFound',
    });
    // The value is the listener's ARN.
    const [listenerId] = mixed.ofType('AWS::GlobalAccelerator::Listener')[0]!;
    const [, custom] = mixed.ofType('Custom::AWS')[0]!;
    expect(JSON.stringify(custom.Properties.Create)).toContain(
      JSON.stringify({ 'Fn::GetAtt': [listenerId, 'ListenerArn'] }),
    );
  });

  test('each writer may put and delete that one parameter in its own region, nothing else', () => {
    for (const [region, writer] of listenerWriters(byName('three regions'))) {
      expect(writer.statements).toEqual([
        {
          Effect: 'Allow',
          Action: ['ssm:PutParameter', 'ssm:DeleteParameter'],
          Resource: {
            'Fn::Join': [
              '',
              [
                'arn:',
                { Ref: 'AWS::Partition' },
                `:ssm:${region}:`,
                { Ref: 'AWS::AccountId' },
                ':parameter/gco/accelerator-listener-arn',
              ],
            ],
          },
        },
      ]);
    }
  });

  test('no CDK cross-region reference: no export writer or reader, no cross-stack export', () => {
    for (const s of [commercial, byName('three regions'), mixed]) {
      const types = Object.values(s.resources).map((r) => r.Type);
      expect(types.filter((t) => /CrossRegion/.test(t))).toEqual([]);
      expect(JSON.stringify(s.template.toJSON())).not.toMatch(/ExportsWriter|ExportsReader|Fn::ImportValue/);
      const outputs = Object.entries((s.template.toJSON().Outputs ?? {}) as Record<string, Json>);
      expect(outputs.filter(([id, o]) => id.startsWith('ExportsOutput') || 'Export' in o)).toEqual([]);
    }
  });

  test('no supported region: no accelerator, no writer, no global catch-all routes, no global proxies', () => {
    expect(unsupported.config.hasAccelerator).toBe(false);
    for (const type of [
      'AWS::GlobalAccelerator::Accelerator',
      'AWS::GlobalAccelerator::Listener',
      'Custom::AWS',
    ]) {
      expect(unsupported.ofType(type)).toEqual([]);
    }
    const routes = Object.keys(routesOf(unsupported));
    expect(routes.filter((r) => r.includes('{proxy+}'))).toEqual([]);
    expect(routes.sort()).toEqual(Object.keys(AGGREGATE_ROUTES).sort());
    const services = unsupported
      .ofType('AWS::Lambda::Function')
      .map(([, f]) => (f.Properties.Environment as { Variables: Json }).Variables.POWERTOOLS_SERVICE_NAME);
    expect(services).not.toContain('control-plane-proxy');
    expect(services).not.toContain('inference-stream-proxy');
    expect(unsupported.template.toJSON().Outputs).not.toHaveProperty('AcceleratorDnsName');
  });

  test('no supported region: the aggregator still reaches every region', () => {
    unsupported.template.hasResourceProperties('AWS::Lambda::Function', {
      Role: { 'Fn::GetAtt': [Match.stringLikeRegexp('^AggregatorRole'), 'Arn'] },
      Environment: { Variables: Match.objectLike({ REGIONS: 'mx-central-1,ap-southeast-7' }) },
    });
    const [, policy] = unsupported
      .ofType('AWS::IAM::Policy')
      .find(([id]) => id.startsWith('AggregatorRole'))!;
    const invoke = (policy.Properties.PolicyDocument as { Statement: Json[] }).Statement.find(
      (st) => st.Sid === 'InvokeRegionalAggregateRoutes',
    )!;
    const regions = new Set((invoke.Resource as unknown[]).map((arn) => flatten(arn).split(':')[3]));
    expect([...regions]).toEqual(['mx-central-1', 'ap-southeast-7']);
  });

  test('a mixed deployment keeps the accelerator and its proxies for the supported region', () => {
    expect(mixed.ofType('AWS::GlobalAccelerator::Listener')).toHaveLength(1);
    expect(Object.keys(routesOf(mixed))).toEqual(expect.arrayContaining(Object.keys(ACCELERATOR_ROUTES)));
  });
});

describe('api_gateway.global_endpoint_type', () => {
  const endpointTypes = (s: Synth): unknown =>
    s.single('AWS::ApiGateway::RestApi').Properties.EndpointConfiguration;

  test('default in the commercial partition: EDGE; "regional": REGIONAL, and the web ACL is still associated', () => {
    expect(endpointTypes(commercial)).toEqual({ Types: ['EDGE'] });
    const regional = synthGlobal({ api_gateway: { global_endpoint_type: 'regional' } });
    expect(regional.config.apiGateway.globalEndpointType).toBe('REGIONAL');
    expect(endpointTypes(regional)).toEqual({ Types: ['REGIONAL'] });
    const [stageId] = regional.ofType('AWS::ApiGateway::Stage')[0]!;
    const association = regional.single('AWS::WAFv2::WebACLAssociation').Properties;
    expect(JSON.stringify(association.ResourceArn)).toContain(JSON.stringify({ Ref: stageId }));
    expect(association.WebACLArn).toEqual({
      'Fn::GetAtt': [expect.stringMatching(/^WafWebAcl/), 'Arn'],
    });
    // The routes, the 900 s inference integration included, are the same on either endpoint type.
    expect(routesOf(regional)).toEqual(routesOf(commercial));
  });
});

describe('removal_policy and resource_generation (docs/operations.md, "Teardown and redeploy")', () => {
  const studio = { analytics_environment: { enabled: true } };
  const retained = synthGlobal(studio);
  const destroyed = synthGlobal({ ...studio, removal_policy: 'destroy' });
  const policies = (s: Synth, type: string): [string | undefined, string | undefined][] =>
    s
      .ofType(type)
      .map(([, r]) => [r.DeletionPolicy, (r as { UpdateReplacePolicy?: string }).UpdateReplacePolicy]);
  // API Gateway's account-level logging role and setting: shared by every API of the region.
  const ACCOUNT_LEVEL = ['AWS::IAM::Role', 'AWS::ApiGateway::Account'];

  test('"retain": tables, the WAF and API access log groups and the user pool are retained', () => {
    for (const type of ['AWS::DynamoDB::GlobalTable', 'AWS::Logs::LogGroup', 'AWS::Cognito::UserPool']) {
      const data =
        type === 'AWS::Logs::LogGroup'
          ? retained.ofType(type).filter(([id]) => /^(Waf|GlobalApiAccessLogs)/.test(id))
          : retained.ofType(type);
      expect(data.length).toBeGreaterThan(0);
      for (const [, r] of data) {
        expect([r.DeletionPolicy, (r as { UpdateReplacePolicy?: string }).UpdateReplacePolicy]).toEqual([
          'Retain',
          'Retain',
        ]);
      }
    }
  });

  test('"destroy": every one of them is deleted, the user pool unprotected; nothing else is retained', () => {
    for (const type of ['AWS::DynamoDB::GlobalTable', 'AWS::Cognito::UserPool']) {
      for (const policy of policies(destroyed, type)) expect(policy).toEqual(['Delete', 'Delete']);
    }
    expect(destroyed.single('AWS::Cognito::UserPool').Properties.DeletionProtection).toBe('INACTIVE');
    for (const [, table] of destroyed.ofType('AWS::DynamoDB::GlobalTable')) {
      expect(table.Properties.Replicas).toEqual([
        expect.objectContaining({ DeletionProtectionEnabled: false }),
      ]);
    }
    const leftovers = Object.entries(destroyed.resources)
      .filter(([, r]) => r.DeletionPolicy === 'Retain')
      .map(([id, r]) => [r.Type, id]);
    expect(leftovers.filter(([type]) => !ACCOUNT_LEVEL.includes(type!))).toEqual([]);
    expect(leftovers.map(([, id]) => id)).toEqual([
      expect.stringMatching(/^GlobalApiCloudWatchRole/),
      expect.stringMatching(/^GlobalApiAccount/),
    ]);
  });
});

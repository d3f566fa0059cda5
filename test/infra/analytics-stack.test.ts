// The analytics stack (docs/analytics-stack.md, docs/analytics-api.md): routes and their authorization,
// the authorizer and its cache, stage settings, resource policy, tables, stream, functions and their
// environment, least-privilege roles, the optional warehouse, partition-agnostic ARNs and cdk-nag (the
// stack's snapshot is in test/infra/app.test.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { App } from 'aws-cdk-lib';
import type { CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { ANALYTICS_TABLES, analyticsStreamName } from '../../contracts/analytics-resources.js';
import { analyticsApiDefinition } from '../../contracts/api-routes.js';
import type { RouteHandler } from '../../contracts/api-routes.js';
import { addAnalyticsStack, buildApp } from '../../lib/app-builder.js';
import { loadConfig } from '../../lib/config.js';
import { ACCESS_LOG_FIELDS } from '../../lib/constructs/platform-rest-api.js';
import {
  REDSHIFT_DB_ROLES_TAG,
  SETUP_DB_ROLE,
  STREAM_READ_ACTIONS,
} from '../../lib/constructs/analytics-warehouse.js';
import { GATEWAY_RESPONSES } from '../../lib/stacks/analytics-stack.js';
import type { AnalyticsStack } from '../../lib/stacks/analytics-stack.js';
import { tableName } from '../../contracts/tables.js';
import {
  addNagPacks,
  apiResourcePaths,
  HARD_CODED_ARN,
  nagErrors,
  stageMethodSettings,
} from '../support/stack-templates.js';
import { assemblyOutdir } from '../support/suite-temp-dir.js';

// ---- building ------------------------------------------------------------------------------------

interface Built {
  readonly stack: AnalyticsStack;
  readonly template: Template;
  readonly json: string;
}

/**
 * The analytics stack as bin/app.ts builds it (buildApp). Bundles only this stack's functions: the other
 * stacks are not under test here.
 */
function analyticsApp(context: Record<string, unknown>): Built {
  const built = buildApp(context, {
    analyticsReporting: false,
    outdir: assemblyOutdir(),
    context: { 'aws:cdk:bundling-stacks': ['gco-analytics'] },
  });
  const stack = built.analyticsStack;
  if (!stack) throw new Error('analytics_api.enabled should create the analytics stack');
  addNagPacks(stack);
  const template = Template.fromStack(stack);
  return { stack, template, json: JSON.stringify(template.toJSON()) };
}

/** Variants: the stack alone in an app, as buildApp adds it, so a synth does not pay for the other stacks; no bundling. */
function analyticsStackOnly(context: Record<string, unknown>, opts: { nag?: boolean } = {}): Built {
  const app = new App({
    analyticsReporting: false,
    outdir: assemblyOutdir(),
    context: { 'aws:cdk:bundling-stacks': [] },
  });
  const stack = addAnalyticsStack(app, loadConfig(context));
  if (opts.nag) addNagPacks(stack);
  const template = Template.fromStack(stack);
  return { stack, template, json: JSON.stringify(template.toJSON()) };
}

// ---- template helpers ----------------------------------------------------------------------------

interface Statement {
  readonly Sid?: string;
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Principal?: unknown;
  readonly Condition?: unknown;
}

// Template JSON is loosely typed (findResources); the assertions check its shape.
const resourcesOf = (t: Template, type: string) => t.findResources(type);

const only = <T>(record: Record<string, T>): [string, T] => {
  const entries = Object.entries(record);
  expect(entries).toHaveLength(1);
  return entries[0]!;
};

const logicalId = (stack: AnalyticsStack, construct: IConstruct): string =>
  stack.getLogicalId((construct.node.defaultChild ?? construct) as CfnElement);

const actionsOf = (s: Statement): string[] => (Array.isArray(s.Action) ? s.Action : [s.Action]);

/** Every statement of the identity policies attached to a role. */
function statementsOf(t: Template, roleId: string): Statement[] {
  return Object.values(resourcesOf(t, 'AWS::IAM::Policy'))
    .filter((p) => JSON.stringify(p.Properties.Roles).includes(`"${roleId}"`))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
}

/** The statements that grant data-plane access (not the platform's logs/X-Ray ones). */
const accessStatements = (t: Template, roleId: string): Statement[] =>
  statementsOf(t, roleId).filter((s) => !actionsOf(s).every((a) => /^(logs|xray):/.test(a)));

interface MethodFacts {
  readonly operationName: string;
  readonly authorizationType: string;
  readonly authorizerId?: string;
  readonly integration: {
    readonly Type: unknown;
    readonly IntegrationHttpMethod: unknown;
    readonly TimeoutInMillis: unknown;
    readonly Uri: unknown;
  };
}

/** `POST /applications` → what the template says about that method. */
function methodsOf(t: Template): Map<string, MethodFacts> {
  const paths = apiResourcePaths(t);
  const methods = new Map<string, MethodFacts>();
  for (const m of Object.values(resourcesOf(t, 'AWS::ApiGateway::Method'))) {
    const p = m.Properties;
    const resource = p.ResourceId as { Ref?: string };
    const path = resource.Ref ? paths.get(resource.Ref) : '/';
    const authorizer = p.AuthorizerId as { Ref?: string } | undefined;
    methods.set(`${p.HttpMethod as string} ${path}`, {
      operationName: p.OperationName as string,
      authorizationType: p.AuthorizationType as string,
      ...(authorizer?.Ref ? { authorizerId: authorizer.Ref } : {}),
      integration: p.Integration,
    });
  }
  return methods;
}

/** Rows of docs/analytics-api.md's "Environment" table: variable → functions and whether required. */
function documentedEnvironment(): Map<string, { functions: string[]; required: string }> {
  const doc = readFileSync(join(process.cwd(), 'docs', 'analytics-api.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Environment'));
  const rows = new Map<string, { functions: string[]; required: string }>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const variable = /^`([A-Z0-9_]+)`$/.exec(cells[1] ?? '')?.[1];
    if (!variable) continue;
    rows.set(variable, {
      functions: (cells[2] ?? '').split(',').map((f) => f.trim()),
      required: cells[3] ?? '',
    });
  }
  return rows;
}

const FUNCTION_DOC_NAMES = {
  admin: 'admin',
  authorizer: 'authorizer',
  events: 'events',
  warehouseSetup: 'warehouse-setup',
} as const;
type FunctionKey = keyof typeof FUNCTION_DOC_NAMES;

const ROUTE_FUNCTION: Record<RouteHandler, FunctionKey | undefined> = {
  'analytics-admin': 'admin',
  'analytics-events': 'events',
  'analytics-warehouse-setup': 'warehouseSetup',
  'control-plane-proxy': undefined,
  'inference-stream-proxy': undefined,
  aggregator: undefined,
  'studio-login': undefined,
};

// Variables every PlatformFunction sets; not part of the handlers' contract.
const PLATFORM_ENV = ['NODE_OPTIONS', 'POWERTOOLS_SERVICE_NAME'];

// ---- default config ------------------------------------------------------------------------------

describe('analytics stack, default config (analytics_api.enabled)', () => {
  const { stack, template, json } = analyticsApp({ analytics_api: { enabled: true } });
  const config = stack.config;
  const definition = analyticsApiDefinition(config);
  const fnId = (key: FunctionKey) => logicalId(stack, stack.functions[key]);
  const roleId = (key: FunctionKey) => logicalId(stack, stack.functions[key].role!);
  const tableId = (key: keyof typeof ANALYTICS_TABLES) => logicalId(stack, stack.tables[key]);
  const arnOf = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });
  const authorizerId = logicalId(stack, stack.authorizer);

  test('is <project>-analytics in the analytics region (default: the global region), tagged', () => {
    expect(stack.stackName).toBe('gco-analytics');
    expect(stack.region).toBe(config.globalRegion);
    expect(stack.tags.tagValues()).toEqual({ Project: 'gco' });
  });

  test('a REGIONAL REST API named <project>-analytics', () => {
    const [, api] = only(resourcesOf(template, 'AWS::ApiGateway::RestApi'));
    expect(api.Properties.Name).toBe('gco-analytics');
    expect(api.Properties.EndpointConfiguration).toEqual({ Types: ['REGIONAL'] });
  });

  test('exactly the routes of analyticsApiDefinition, each with its operation name and authorization', () => {
    const methods = methodsOf(template);
    expect([...methods.keys()].sort()).toEqual(definition.routes.map((r) => `${r.method} ${r.path}`).sort());
    for (const route of definition.routes) {
      const m = methods.get(`${route.method} ${route.path}`)!;
      expect(m.operationName).toBe(route.operationId);
      if (route.auth === 'iam') {
        expect(m.authorizationType).toBe('AWS_IAM');
        expect(m.authorizerId).toBeUndefined();
      } else {
        expect(route.auth).toBe('analytics-api-key');
        expect(m.authorizationType).toBe('CUSTOM');
        expect(m.authorizerId).toBe(authorizerId);
      }
    }
    // docs/analytics-api.md: administrative operations IAM, sending events the API key.
    const custom = [...methods].filter(([, m]) => m.authorizationType === 'CUSTOM').map(([k]) => k);
    expect(custom).toEqual(['POST /applications/{APPLICATION_ID}/events']);
    expect(methods.get('POST /redshift/setup')?.operationName).toBe('setupRedshift');
    expect(methods.get('POST /applications/redshift/setup')?.operationName).toBe(
      'setupRedshiftUnderApplications',
    );
  });

  test('each route is a Lambda proxy integration of its handler with a 29 s timeout', () => {
    const methods = methodsOf(template);
    for (const route of definition.routes) {
      if (route.integration.type !== 'lambda') throw new Error('analytics routes are Lambda routes');
      const key = ROUTE_FUNCTION[route.integration.handler]!;
      const { integration } = methods.get(`${route.method} ${route.path}`)!;
      expect(integration.Type).toBe('AWS_PROXY');
      expect(integration.IntegrationHttpMethod).toBe('POST');
      expect(integration.TimeoutInMillis).toBe(29_000);
      expect(JSON.stringify(integration.Uri)).toContain(`"${fnId(key)}","Arn"`);
    }
  });

  test('REQUEST authorizer on the Authorization header, cached for the configured 300 s', () => {
    template.resourceCountIs('AWS::ApiGateway::Authorizer', 1);
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'REQUEST',
      Name: 'gco-analytics-api-key',
      IdentitySource: 'method.request.header.Authorization',
      AuthorizerResultTtlInSeconds: 300,
    });
    const [, authorizer] = only(resourcesOf(template, 'AWS::ApiGateway::Authorizer'));
    expect(JSON.stringify(authorizer.Properties.AuthorizerUri)).toContain(`"${fnId('authorizer')}","Arn"`);
  });

  test('API Gateway may invoke each function only from its own routes or the authorizer', () => {
    const permissions = Object.values(resourcesOf(template, 'AWS::Lambda::Permission'));
    for (const p of permissions) {
      expect(p.Properties.Principal).toBe('apigateway.amazonaws.com');
      const source = JSON.stringify(p.Properties.SourceArn);
      // Scoped to this API: a stage + method + path, or the authorizer; never "any API".
      expect(source).toContain('"Ref":"' + logicalId(stack, stack.restApi.api) + '"');
      expect(source).not.toMatch(/\/\*\/\*"/);
    }
    const forFn = (key: FunctionKey) =>
      permissions.filter((p) => JSON.stringify(p.Properties.FunctionName).includes(`"${fnId(key)}"`));
    const routesOf = (handler: RouteHandler) =>
      definition.routes.filter((r) => r.integration.type === 'lambda' && r.integration.handler === handler);
    expect(forFn('admin')).toHaveLength(routesOf('analytics-admin').length);
    expect(forFn('events')).toHaveLength(1);
    expect(forFn('warehouseSetup')).toHaveLength(2);
    const [authorizerPermission] = forFn('authorizer');
    expect(forFn('authorizer')).toHaveLength(1);
    expect(JSON.stringify(authorizerPermission!.Properties.SourceArn)).toContain('/authorizers/');
  });

  test('stage: configured name, throttling, INFO logs, no data trace, metrics, X-Ray', () => {
    const [, stage] = only(resourcesOf(template, 'AWS::ApiGateway::Stage'));
    expect(stage.Properties.StageName).toBe('live');
    expect(stage.Properties.TracingEnabled).toBe(true);
    expect(stage.Properties.MethodSettings).toEqual([stageMethodSettings(1000, 2000)]);
  });

  test('JSON access logs without keys, signatures, headers or bodies', () => {
    const [, stage] = only(resourcesOf(template, 'AWS::ApiGateway::Stage'));
    const format = stage.Properties.AccessLogSetting.Format as string;
    expect(JSON.parse(format)).toEqual(ACCESS_LOG_FIELDS);
    for (const secret of [
      '$context.identity.apiKey',
      '$input',
      '$method.request',
      'header',
      'Authorization',
    ]) {
      expect(format).not.toContain(secret);
    }
    expect(JSON.stringify(stage.Properties.AccessLogSetting.DestinationArn)).toContain(
      logicalId(stack, stack.restApi.accessLogs),
    );
  });

  test('resource policy: account principals (by their IAM policies) everything; anyone only the events route', () => {
    const [, api] = only(resourcesOf(template, 'AWS::ApiGateway::RestApi'));
    expect(api.Properties.Policy.Statement).toEqual([
      {
        Sid: 'AccountPrincipals',
        Effect: 'Allow',
        Principal: {
          AWS: {
            'Fn::Join': [
              '',
              ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, ':root'],
            ],
          },
        },
        Action: 'execute-api:Invoke',
        Resource: 'execute-api:/*',
      },
      {
        Sid: 'GamesSendEvents',
        Effect: 'Allow',
        Principal: { AWS: '*' },
        Action: 'execute-api:Invoke',
        Resource: 'execute-api:/live/POST/applications/*/events',
      },
    ]);
  });

  test('every gateway error is JSON {"message":…}; authorizer answers have their own messages', () => {
    const responses = Object.values(resourcesOf(template, 'AWS::ApiGateway::GatewayResponse'));
    expect(responses.map((r) => r.Properties.ResponseType).sort()).toEqual(
      ['ACCESS_DENIED', 'DEFAULT_4XX', 'DEFAULT_5XX', 'UNAUTHORIZED'].sort(),
    );
    for (const r of responses) {
      const templates = r.Properties.ResponseTemplates as Record<string, string>;
      expect(Object.keys(templates)).toEqual(['application/json']);
      expect(templates['application/json']).toBe(GATEWAY_RESPONSES[r.Properties.ResponseType as string]);
      // $context.error.messageString is already a quoted JSON string.
      const body = JSON.parse(templates['application/json']!.replace('$context.error.messageString', '"x"'));
      expect(Object.keys(body)).toEqual(['message']);
      expect(r.Properties.StatusCode).toBeUndefined();
    }
    expect(GATEWAY_RESPONSES.UNAUTHORIZED).toContain('Authorization header');
  });

  test('tables: keys, the key-hash GSI, TTL, PITR, encryption, deletion protection, retained', () => {
    const tables = resourcesOf(template, 'AWS::DynamoDB::GlobalTable');
    expect(Object.keys(tables)).toHaveLength(3);
    for (const [key, def] of Object.entries(ANALYTICS_TABLES)) {
      const table = tables[tableId(key as keyof typeof ANALYTICS_TABLES)]!;
      const p = table.Properties;
      expect(p.TableName).toBe(tableName('gco', def));
      expect(p.BillingMode).toBe('PAY_PER_REQUEST');
      expect(p.SSESpecification).toEqual({ SSEEnabled: true, SSEType: 'KMS' });
      expect(p.Replicas).toEqual([
        expect.objectContaining({
          Region: stack.region,
          DeletionProtectionEnabled: true,
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        }),
      ]);
      expect(table.DeletionPolicy).toBe('Retain');
      expect(table.UpdateReplacePolicy).toBe('Retain');
    }
    const auth = tables[tableId('authorizations')]!.Properties;
    expect(auth.KeySchema).toEqual([
      { AttributeName: 'ApplicationId', KeyType: 'HASH' },
      { AttributeName: 'ApiKeyId', KeyType: 'RANGE' },
    ]);
    expect(auth.GlobalSecondaryIndexes).toEqual([
      {
        IndexName: 'key-hash-index',
        KeySchema: [{ AttributeName: 'ApiKeyHash', KeyType: 'HASH' }],
        Projection: { ProjectionType: 'ALL' },
      },
    ]);
    expect(tables[tableId('applications')]!.Properties.KeySchema).toEqual([
      { AttributeName: 'ApplicationId', KeyType: 'HASH' },
    ]);
    const idem = tables[tableId('idempotency')]!.Properties;
    expect(idem.KeySchema).toEqual([{ AttributeName: 'id', KeyType: 'HASH' }]);
    expect(idem.TimeToLiveSpecification).toEqual({ AttributeName: 'expiration', Enabled: true });
    expect(tables[tableId('applications')]!.Properties.TimeToLiveSpecification).toBeUndefined();
  });

  test('events stream: on demand, aws/kinesis encryption, 7 days, retained', () => {
    const [, s] = only(resourcesOf(template, 'AWS::Kinesis::Stream'));
    expect(s.Properties).toEqual({
      Name: analyticsStreamName('gco'),
      StreamModeDetails: { StreamMode: 'ON_DEMAND' },
      StreamEncryption: { EncryptionType: 'KMS', KeyId: 'alias/aws/kinesis' },
      RetentionPeriodHours: 168,
      Tags: [{ Key: 'Project', Value: 'gco' }],
    });
    expect(s.DeletionPolicy).toBe('Retain');
  });

  test('four functions: Node.js 24 on arm64, X-Ray, timeouts and memory per handler', () => {
    const fns = resourcesOf(template, 'AWS::Lambda::Function');
    expect(Object.keys(fns).sort()).toEqual(
      (['admin', 'authorizer', 'events', 'warehouseSetup'] as const).map(fnId).sort(),
    );
    const expected: Record<FunctionKey, [number, number]> = {
      admin: [30, 512],
      authorizer: [10, 512],
      events: [30, 1024],
      warehouseSetup: [30, 512],
    };
    for (const [key, [timeout, memory]] of Object.entries(expected)) {
      const p = fns[fnId(key as FunctionKey)]!.Properties;
      expect(p.Runtime).toBe('nodejs24.x');
      expect(p.Architectures).toEqual(['arm64']);
      expect(p.TracingConfig).toEqual({ Mode: 'Active' });
      expect(p.Handler).toBe('index.handler');
      expect(p.Timeout).toBe(timeout);
      expect(p.MemorySize).toBe(memory);
    }
    // A route's function outlives the 29 s integration timeout, so API Gateway answers a slow request
    // itself; the authorizer stays well inside it.
    for (const key of ['admin', 'events', 'warehouseSetup'] as const) {
      expect(fns[fnId(key)]!.Properties.Timeout).toBeGreaterThan(29);
    }
    expect(fns[fnId('authorizer')]!.Properties.Timeout).toBeLessThanOrEqual(29);
  });

  test('environment: exactly the variables of docs/analytics-api.md, with the stack’s names', () => {
    const fns = resourcesOf(template, 'AWS::Lambda::Function');
    const envOf = (key: FunctionKey) =>
      fns[fnId(key)]!.Properties.Environment.Variables as Record<string, unknown>;
    const stream = { Ref: logicalId(stack, stack.eventsStream) };
    // No NODE_OPTIONS: request-path functions start without --enable-source-maps (docs/edge-lambdas.md).
    const base = (service: string) => ({
      POWERTOOLS_SERVICE_NAME: service,
      POWERTOOLS_LOG_LEVEL: 'INFO',
    });
    expect(envOf('admin')).toEqual({
      ...base('analytics-admin'),
      APPLICATIONS_TABLE: 'gco-analytics-applications',
      AUTHORIZATIONS_TABLE: 'gco-analytics-authorizations',
    });
    expect(envOf('authorizer')).toEqual({
      ...base('analytics-authorizer'),
      APPLICATIONS_TABLE: 'gco-analytics-applications',
      AUTHORIZATIONS_TABLE: 'gco-analytics-authorizations',
    });
    expect(envOf('events')).toEqual({
      ...base('analytics-events'),
      APPLICATIONS_TABLE: 'gco-analytics-applications',
      IDEMPOTENCY_TABLE: 'gco-analytics-idempotency',
      EVENTS_STREAM_NAME: stream,
    });
    // No warehouse: no REDSHIFT_WORKGROUP_NAME, so setup answers 400 "not configured".
    expect(envOf('warehouseSetup')).toEqual({
      ...base('analytics-warehouse-setup'),
      EVENTS_STREAM_NAME: stream,
    });

    // Cross-check with the handlers' documented contract.
    const documented = documentedEnvironment();
    expect(documented.size).toBeGreaterThan(0);
    for (const key of Object.keys(FUNCTION_DOC_NAMES) as FunctionKey[]) {
      const name = FUNCTION_DOC_NAMES[key];
      const env = envOf(key);
      for (const variable of Object.keys(env).filter((v) => !PLATFORM_ENV.includes(v))) {
        const row = documented.get(variable);
        expect({ variable, documentedFor: row?.functions.some((f) => f === name || f === 'all') }).toEqual({
          variable,
          documentedFor: true,
        });
      }
      for (const [variable, row] of documented) {
        if (row.required === 'yes' && row.functions.includes(name))
          expect(Object.keys(env)).toContain(variable);
      }
    }
  });

  test('admin: read/write on applications and keys, nothing else', () => {
    expect(accessStatements(template, roleId('admin'))).toEqual([
      {
        Sid: 'Applications',
        Effect: 'Allow',
        Action: [
          'dynamodb:PutItem',
          'dynamodb:GetItem',
          'dynamodb:Scan',
          'dynamodb:DeleteItem',
          'dynamodb:ConditionCheckItem',
        ],
        Resource: arnOf(tableId('applications')),
      },
      {
        Sid: 'Authorizations',
        Effect: 'Allow',
        Action: [
          'dynamodb:PutItem',
          'dynamodb:GetItem',
          'dynamodb:Query',
          'dynamodb:UpdateItem',
          'dynamodb:DeleteItem',
          'dynamodb:BatchWriteItem',
        ],
        Resource: arnOf(tableId('authorizations')),
      },
    ]);
  });

  test('authorizer: reads only (key by hash via the GSI, the key, its application)', () => {
    expect(accessStatements(template, roleId('authorizer'))).toEqual([
      {
        Sid: 'FindKeyByHash',
        Effect: 'Allow',
        Action: 'dynamodb:Query',
        Resource: { 'Fn::Join': ['', [arnOf(tableId('authorizations')), '/index/key-hash-index']] },
      },
      {
        Sid: 'ReadKey',
        Effect: 'Allow',
        Action: 'dynamodb:GetItem',
        Resource: arnOf(tableId('authorizations')),
      },
      {
        Sid: 'ApplicationExists',
        Effect: 'Allow',
        Action: 'dynamodb:GetItem',
        Resource: arnOf(tableId('applications')),
      },
    ]);
  });

  test('events: PutRecords on the stream, the application check, idempotency records', () => {
    expect(accessStatements(template, roleId('events'))).toEqual([
      {
        Sid: 'WriteEvents',
        Effect: 'Allow',
        Action: 'kinesis:PutRecords',
        Resource: arnOf(logicalId(stack, stack.eventsStream)),
      },
      {
        Sid: 'ApplicationExists',
        Effect: 'Allow',
        Action: 'dynamodb:GetItem',
        Resource: arnOf(tableId('applications')),
      },
      {
        Sid: 'IdempotencyRecords',
        Effect: 'Allow',
        Action: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
        Resource: arnOf(tableId('idempotency')),
      },
    ]);
  });

  test('warehouse setup without a warehouse: no data access at all', () => {
    expect(accessStatements(template, roleId('warehouseSetup'))).toEqual([]);
  });

  test('every role: its own log group, X-Ray; no wildcard action; `*` resource only for X-Ray', () => {
    for (const key of Object.keys(FUNCTION_DOC_NAMES) as FunctionKey[]) {
      const statements = statementsOf(template, roleId(key));
      expect(statements).toContainEqual({
        Effect: 'Allow',
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: arnOf(logicalId(stack, stack.functions[key].logGroup)),
      });
      for (const s of statements) {
        expect(s.Effect).toBe('Allow');
        for (const action of actionsOf(s)) expect(action).not.toMatch(/\*/);
        if (JSON.stringify(s.Resource).includes('"*"')) {
          expect(actionsOf(s).sort()).toEqual(['xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
        }
      }
      const [, role] = only(
        Object.fromEntries(
          Object.entries(resourcesOf(template, 'AWS::IAM::Role')).filter(([id]) => id === roleId(key)),
        ),
      );
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
      expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
        { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' } },
      ]);
    }
  });

  test('no warehouse resources when the flag is off', () => {
    for (const type of [
      'AWS::RedshiftServerless::Namespace',
      'AWS::RedshiftServerless::Workgroup',
      'AWS::EC2::VPC',
      'AWS::EC2::VPCEndpoint',
    ]) {
      template.resourceCountIs(type, 0);
    }
    expect(stack.warehouse).toBeUndefined();
    // Only the setup routes mention Redshift; no role may use it (booleans keep failures readable).
    expect(json.includes('redshift-data:')).toBe(false);
    expect(json.includes('redshift-serverless:')).toBe(false);
    expect(json.includes('AWS::RedshiftServerless')).toBe(false);
  });

  test('outputs: API URL, stream and table names', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(outputs.AnalyticsApiUrl?.Value).toEqual(stack.resolve(stack.restApi.api.url));
    expect(JSON.stringify(outputs.AnalyticsApiUrl?.Value)).toContain('.execute-api.');
    expect(outputs.EventsStreamName?.Value).toEqual({ Ref: logicalId(stack, stack.eventsStream) });
    expect(outputs.ApplicationsTableName?.Value).toEqual({ Ref: tableId('applications') });
    expect(outputs.AuthorizationsTableName?.Value).toEqual({ Ref: tableId('authorizations') });
    expect(outputs.IdempotencyTableName?.Value).toEqual({ Ref: tableId('idempotency') });
    expect(outputs.Partition?.Value).toEqual({ Ref: 'AWS::Partition' });
    expect(outputs.RedshiftWorkgroupName).toBeUndefined();
  });

  test('no hard-coded partition', () => {
    expect(json.includes(HARD_CODED_ARN)).toBe(false);
  });

  // Snapshot and cdk-nag of this configuration: test/infra/app.test.ts ("analytics API enabled").
});

// ---- configured variants -------------------------------------------------------------------------

describe('analytics stack, custom stage / cache off / throttles / region / removal_policy "destroy"', () => {
  const { stack, template, json } = analyticsStackOnly({
    project_name: 'acme',
    analytics_api: { enabled: true, region: 'us-west-2', stage: 'v2', authorizer_cache_ttl_seconds: 0 },
    api_gateway: { throttling_rate_limit: 50, throttling_burst_limit: 100 },
    // "destroy" turns deletion protection off by default.
    removal_policy: 'destroy',
    tables: { point_in_time_recovery: false },
  });

  test('deploys to analytics_api.region as acme-analytics', () => {
    expect(stack.stackName).toBe('acme-analytics');
    expect(stack.region).toBe('us-west-2');
  });

  test('authorizer cache TTL 0 turns caching off (identity source unchanged)', () => {
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'REQUEST',
      IdentitySource: 'method.request.header.Authorization',
      AuthorizerResultTtlInSeconds: 0,
    });
  });

  test('stage name and throttles come from config; the events grant follows the stage', () => {
    const [, stage] = only(resourcesOf(template, 'AWS::ApiGateway::Stage'));
    expect(stage.Properties.StageName).toBe('v2');
    expect(stage.Properties.MethodSettings[0]).toMatchObject({
      ThrottlingRateLimit: 50,
      ThrottlingBurstLimit: 100,
    });
    const [, api] = only(resourcesOf(template, 'AWS::ApiGateway::RestApi'));
    expect(api.Properties.Policy.Statement[1].Resource).toBe('execute-api:/v2/POST/applications/*/events');
    expect(json).not.toContain('execute-api:/live/');
  });

  test('names follow the project; tables and stream are deleted with the stack, unprotected', () => {
    const tables = Object.values(resourcesOf(template, 'AWS::DynamoDB::GlobalTable'));
    expect(tables.map((t) => t.Properties.TableName).sort()).toEqual(
      Object.values(ANALYTICS_TABLES)
        .map((d) => tableName('acme', d))
        .sort(),
    );
    for (const t of tables) {
      expect(t.DeletionPolicy).toBe('Delete');
      expect(t.Properties.Replicas[0]).toMatchObject({
        DeletionProtectionEnabled: false,
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: false },
      });
    }
    const [, s] = only(resourcesOf(template, 'AWS::Kinesis::Stream'));
    expect(s.Properties.Name).toBe('acme-analytics-events');
    expect(s.DeletionPolicy).toBe('Delete');
  });
});

describe('analytics stack in aws-us-gov', () => {
  const { stack, json } = analyticsStackOnly({
    global_region: 'us-gov-west-1',
    regions: ['us-gov-west-1'],
    analytics_api: { enabled: true },
  });

  test('follows the global region and builds every ARN from AWS::Partition', () => {
    expect(stack.region).toBe('us-gov-west-1');
    expect(json.includes(HARD_CODED_ARN)).toBe(false);
    expect(json).toContain('{"Ref":"AWS::Partition"}');
  });
});

// ---- warehouse -----------------------------------------------------------------------------------

describe('analytics stack with the Redshift Serverless warehouse', () => {
  const { stack, template, json } = analyticsStackOnly(
    { analytics_api: { enabled: true, warehouse_enabled: true } },
    { nag: true },
  );
  const warehouse = stack.warehouse!;
  const streamRoleId = logicalId(stack, warehouse.streamRole);
  const setupRoleId = logicalId(stack, stack.functions.warehouseSetup.role!);
  const workgroupId = logicalId(stack, warehouse.workgroup);
  const workgroupArn = { 'Fn::GetAtt': [workgroupId, 'Workgroup.WorkgroupArn'] };

  test('namespace: managed admin password, the stream role, audit logs, retained', () => {
    const [, ns] = only(resourcesOf(template, 'AWS::RedshiftServerless::Namespace'));
    expect(ns.Properties).toMatchObject({
      NamespaceName: 'gco-analytics',
      DbName: 'analytics',
      ManageAdminPassword: true,
      IamRoles: [{ 'Fn::GetAtt': [streamRoleId, 'Arn'] }],
      DefaultIamRoleArn: { 'Fn::GetAtt': [streamRoleId, 'Arn'] },
      LogExports: ['userlog', 'connectionlog', 'useractivitylog'],
    });
    expect(ns.Properties.AdminUserPassword).toBeUndefined();
    expect(ns.DeletionPolicy).toBe('Retain');
  });

  test('workgroup: private, enhanced VPC routing, three isolated subnets, its own security group', () => {
    const [, wg] = only(resourcesOf(template, 'AWS::RedshiftServerless::Workgroup'));
    expect(wg.Properties).toMatchObject({
      WorkgroupName: 'gco-analytics',
      NamespaceName: { Ref: logicalId(stack, warehouse.namespace) },
      EnhancedVpcRouting: true,
      PubliclyAccessible: false,
      BaseCapacity: 8,
      SecurityGroupIds: [{ 'Fn::GetAtt': [logicalId(stack, warehouse.securityGroup), 'GroupId'] }],
    });
    const subnets = resourcesOf(template, 'AWS::EC2::Subnet');
    expect(wg.Properties.SubnetIds).toHaveLength(3);
    expect(Object.keys(subnets)).toHaveLength(3);
    const azs = Object.values(subnets).map((s) => JSON.stringify(s.Properties.AvailabilityZone));
    expect(new Set(azs).size).toBe(3);
    for (const s of Object.values(subnets)) expect(s.Properties.MapPublicIpOnLaunch).toBe(false);
  });

  test('network: no internet path, flow logs, a Kinesis endpoint only the workgroup may reach', () => {
    template.resourceCountIs('AWS::EC2::InternetGateway', 0);
    template.resourceCountIs('AWS::EC2::NatGateway', 0);
    template.resourceCountIs('AWS::EC2::FlowLog', 1);
    template.hasResourceProperties('AWS::EC2::FlowLog', {
      TrafficType: 'ALL',
      LogDestinationType: 'cloud-watch-logs',
    });
    template.hasResourceProperties('AWS::EC2::VPCEndpoint', {
      VpcEndpointType: 'Interface',
      PrivateDnsEnabled: true,
      ServiceName: `com.amazonaws.${stack.region}.kinesis-streams`,
    });
    const [, sg] = only(
      Object.fromEntries(
        Object.entries(resourcesOf(template, 'AWS::EC2::SecurityGroup')).filter(
          ([id]) => id === logicalId(stack, warehouse.securityGroup),
        ),
      ),
    );
    expect(sg.Properties.SecurityGroupIngress).toBeUndefined();
    // allowAllOutbound false: CDK's "disallow all" placeholder, plus one egress rule to the endpoint.
    const egress = Object.values(resourcesOf(template, 'AWS::EC2::SecurityGroupEgress'));
    expect(egress).toHaveLength(1);
    expect(egress[0]!.Properties).toMatchObject({ IpProtocol: 'tcp', FromPort: 443, ToPort: 443 });
    const ingress = Object.values(resourcesOf(template, 'AWS::EC2::SecurityGroupIngress'));
    expect(ingress).toHaveLength(1);
    expect(ingress[0]!.Properties).toMatchObject({
      FromPort: 443,
      ToPort: 443,
      SourceSecurityGroupId: { 'Fn::GetAtt': [logicalId(stack, warehouse.securityGroup), 'GroupId'] },
    });
  });

  test('stream role: only Redshift may assume it; it may only read the events stream', () => {
    const role = resourcesOf(template, 'AWS::IAM::Role')[streamRoleId]!;
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'redshift.amazonaws.com' } },
      {
        Action: 'sts:AssumeRole',
        Effect: 'Allow',
        Principal: { Service: 'redshift-serverless.amazonaws.com' },
      },
    ]);
    expect(statementsOf(template, streamRoleId)).toEqual([
      {
        Effect: 'Allow',
        Action: [...STREAM_READ_ACTIONS],
        Resource: { 'Fn::GetAtt': [logicalId(stack, stack.eventsStream), 'Arn'] },
      },
    ]);
  });

  test('setup function: Data API on the workgroup, its own statements, temporary credentials', () => {
    expect(accessStatements(template, setupRoleId)).toEqual([
      {
        Sid: 'RunSqlOnTheWarehouse',
        Effect: 'Allow',
        Action: 'redshift-data:ExecuteStatement',
        Resource: workgroupArn,
      },
      {
        Sid: 'TemporaryDatabaseCredentials',
        Effect: 'Allow',
        Action: 'redshift-serverless:GetCredentials',
        Resource: workgroupArn,
      },
      {
        Sid: 'DescribeOwnStatements',
        Effect: 'Allow',
        Action: 'redshift-data:DescribeStatement',
        Resource: '*',
        Condition: { StringEquals: { 'redshift-data:statement-owner-iam-userid': '${aws:userid}' } },
      },
    ]);
    const role = resourcesOf(template, 'AWS::IAM::Role')[setupRoleId]!;
    expect(role.Properties.Tags).toContainEqual({ Key: REDSHIFT_DB_ROLES_TAG, Value: SETUP_DB_ROLE });
  });

  test('setup function environment names the workgroup, database and stream role', () => {
    const fn = resourcesOf(template, 'AWS::Lambda::Function')[
      logicalId(stack, stack.functions.warehouseSetup)
    ]!;
    expect(fn.Properties.Environment.Variables).toMatchObject({
      EVENTS_STREAM_NAME: { Ref: logicalId(stack, stack.eventsStream) },
      REDSHIFT_WORKGROUP_NAME: 'gco-analytics',
      REDSHIFT_DATABASE: 'analytics',
      REDSHIFT_STREAM_ROLE_ARN: { 'Fn::GetAtt': [streamRoleId, 'Arn'] },
    });
  });

  test('the other functions gain nothing from the warehouse', () => {
    for (const key of ['admin', 'authorizer', 'events'] as const) {
      const statements = statementsOf(template, logicalId(stack, stack.functions[key].role!));
      expect(JSON.stringify(statements)).not.toContain('redshift');
    }
  });

  test('outputs the workgroup and stream role', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(outputs.RedshiftWorkgroupName?.Value).toBe('gco-analytics');
    expect(outputs.RedshiftStreamRoleArn?.Value).toEqual({ 'Fn::GetAtt': [streamRoleId, 'Arn'] });
  });

  test('no hard-coded partition', () => {
    expect(json.includes(HARD_CODED_ARN)).toBe(false);
  });

  // The stack's snapshot is the one without the warehouse (test/infra/app.test.ts); this is the difference.
  test('adds exactly the warehouse resources; of the rest only the setup function, its role and policy change', () => {
    const without = analyticsStackOnly({ analytics_api: { enabled: true } }).template.toJSON()
      .Resources as Record<string, { Type: string }>;
    const all = template.toJSON().Resources as Record<string, { Type: string }>;
    const added: Record<string, number> = {};
    for (const [id, r] of Object.entries(all)) if (!(id in without)) added[r.Type] = (added[r.Type] ?? 0) + 1;
    expect(added).toEqual({
      'AWS::EC2::VPC': 1,
      'AWS::EC2::Subnet': 3,
      'AWS::EC2::RouteTable': 3,
      'AWS::EC2::SubnetRouteTableAssociation': 3,
      'AWS::EC2::FlowLog': 1,
      'AWS::Logs::LogGroup': 1,
      'AWS::IAM::Role': 2,
      'AWS::IAM::Policy': 2,
      'AWS::EC2::SecurityGroup': 2,
      'AWS::EC2::SecurityGroupIngress': 1,
      'AWS::EC2::SecurityGroupEgress': 1,
      'AWS::EC2::VPCEndpoint': 1,
      'AWS::RedshiftServerless::Namespace': 1,
      'AWS::RedshiftServerless::Workgroup': 1,
    });
    expect(Object.keys(without).filter((id) => !(id in all))).toEqual([]);
    const changed = Object.keys(without).filter(
      (id) => JSON.stringify(all[id]) !== JSON.stringify(without[id]),
    );
    const setup = stack.functions.warehouseSetup;
    expect(changed.sort()).toEqual(
      [
        logicalId(stack, setup),
        setupRoleId,
        logicalId(stack, setup.role!.node.findChild('DefaultPolicy')),
      ].sort(),
    );
  });

  test('cdk-nag (AwsSolutions, Serverless): no unsuppressed errors', () => {
    expect(nagErrors(stack)).toEqual([]);
  });
});

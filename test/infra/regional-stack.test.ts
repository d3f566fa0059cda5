/**
 * `<project>-<region>`: fine-grained assertions for docs/regional-stack.md (regional API, internal ALB,
 * EKS, cluster services, accelerator endpoint group) in three configurations, plus cdk-nag.
 *
 * Each configuration is built once. Lambda bundling and the CDK's built-in CloudFormation validation are
 * skipped to keep this file fast on two cores: bundling is exercised by the app tests, and the template
 * content asserted here does not depend on either.
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { AssetManifestArtifact } from 'aws-cdk-lib/cx-api';
import { AGGREGATOR_REGIONAL_ROUTES, regionalApiDefinition } from '../../contracts/api-routes.js';
import type { PlatformApp } from '../../lib/app-builder.js';
import { CLUSTER_NAMESPACE, POD_HTTPS_PORT } from '../../lib/cluster-manifests.js';
import { CLUSTER_SERVICES } from '../../contracts/routing.js';
import { ACCESS_LOG_FIELDS } from '../../lib/constructs/platform-rest-api.js';
import {
  COST_CHARTS,
  COST_NAMESPACE,
  OPENCOST_API_PORT,
  OPENCOST_URL,
} from '../../lib/constructs/cost-data-source.js';
import { THIRD_PARTY_IMAGES } from '../../lib/images.js';
import { ALB_ROUTES, defaultRoute, listenerRules } from '../../contracts/routing.js';
import type { AlbServiceName } from '../../contracts/routing.js';
import type { RegionalStack } from '../../lib/stacks/regional-stack.js';
import { buildForAssertions, regionalStackOf } from '../support/platform-app.js';
import { apiResourcePaths, nagErrors, stageMethodSettings } from '../support/stack-templates.js';

type Json = Record<string, unknown>;
interface Resource {
  Type: string;
  Properties: Json;
}

const build = (context: Json): PlatformApp => buildForAssertions(context);

/** Warning annotations other than cdk-nag's own (its warning-level rules and validation notes). */
const cdkWarnings = (stack: RegionalStack): string[] =>
  Annotations.fromStack(stack)
    .findWarning('*', Match.anyValue())
    .map((m) => (typeof m.entry.data === 'string' ? m.entry.data : JSON.stringify(m.entry.data)))
    .filter((data) => !/^(AwsSolutions-|Serverless-|CdkNagValidationFailure)/.test(data));

const resources = (template: Template, type: string): [string, Resource][] =>
  Object.entries(template.findResources(type) as Record<string, Resource>);

const onlyResource = (template: Template, type: string): [string, Resource] => {
  const found = resources(template, type);
  if (found.length !== 1) throw new Error(`expected one ${type}, found ${found.length}`);
  return found[0] as [string, Resource];
};

/** Flattens `Fn::Join` / `Fn::Sub` into text, every reference rendered as `<token>`. */
function joined(value: unknown): string {
  if (typeof value === 'string') return value;
  const sub = (value as { 'Fn::Sub'?: unknown })['Fn::Sub'];
  if (typeof sub === 'string') return sub.replace(/\$\{[^}]+\}/g, '<token>');
  const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (!join) return '<token>';
  return join[1].map(joined).join(join[0]);
}

/** The internal ALB's security group. */
const albSecurityGroup = (template: Template): Resource | undefined =>
  resources(template, 'AWS::EC2::SecurityGroup').find(([id]) => id.startsWith('AlbSecurityGroup'))?.[1];

/** The target group logical id of each ALB service (tag `gco:service`). */
function targetGroupIds(template: Template): Map<AlbServiceName, string> {
  const ids = new Map<AlbServiceName, string>();
  for (const [id, tg] of resources(template, 'AWS::ElasticLoadBalancingV2::TargetGroup')) {
    const tags = tg.Properties.Tags as { Key: string; Value: unknown }[];
    const service = tags.find((t) => t.Key === 'gco:service')?.Value as AlbServiceName;
    ids.set(service, id);
  }
  return ids;
}

/** Every applied Kubernetes object, parsed from the kubectl custom resources. */
function appliedManifests(template: Template): Json[] {
  return resources(template, 'Custom::AWSCDK-EKS-KubernetesResource').flatMap(
    ([, r]) => JSON.parse(joined(r.Properties.Manifest)) as Json[],
  );
}

/** Every IAM statement of the stack's policies (inline policies of roles included). */
function iamStatements(template: Template): Json[] {
  const statements: Json[] = [];
  for (const [, policy] of resources(template, 'AWS::IAM::Policy')) {
    statements.push(...((policy.Properties.PolicyDocument as { Statement: Json[] }).Statement ?? []));
  }
  for (const [, role] of resources(template, 'AWS::IAM::Role')) {
    for (const inline of (role.Properties.Policies as { PolicyDocument: { Statement: Json[] } }[]) ?? []) {
      statements.push(...inline.PolicyDocument.Statement);
    }
  }
  return statements;
}

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

/** The inline or managed policy statements attached to the role with this logical id prefix. */
function statementsOfRole(template: Template, rolePrefix: string): Json[] {
  return resources(template, 'AWS::IAM::Policy')
    .filter(([, p]) =>
      list(p.Properties.Roles).some((r) => ((r as { Ref?: string }).Ref ?? '').startsWith(rolePrefix)),
    )
    .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: Json[] }).Statement);
}

const AGGREGATOR_ARN = {
  'Fn::Join': [
    '',
    ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, ':role/gco-aggregator'],
  ],
};

const aggregatorStatement = {
  Sid: 'AggregatorRoutes',
  Effect: 'Allow',
  Principal: { AWS: AGGREGATOR_ARN },
  Action: 'execute-api:Invoke',
  Resource: AGGREGATOR_REGIONAL_ROUTES.map((r) => `execute-api:/prod/${r.method}${r.path}`),
};

const accountStatement = {
  Sid: 'AccountPrincipals',
  Effect: 'Allow',
  Principal: {
    AWS: {
      'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, ':root']],
    },
  },
  Action: 'execute-api:Invoke',
  Resource: 'execute-api:/*',
  Condition: {
    StringEquals: { 'aws:PrincipalAccount': { Ref: 'AWS::AccountId' } },
    ArnNotEquals: { 'aws:PrincipalArn': AGGREGATOR_ARN },
  },
};

describe('default config (commercial partition, regional API closed to the account)', () => {
  let built: PlatformApp;
  let stack: RegionalStack;
  let template: Template;

  beforeAll(() => {
    built = build({});
    stack = regionalStackOf(built, 'us-east-1');
    template = Template.fromStack(stack);
  });

  describe('regional REST API (docs/regional-stack.md)', () => {
    test('REGIONAL endpoint, and only the aggregator on its five routes (statement 1)', () => {
      const [, api] = onlyResource(template, 'AWS::ApiGateway::RestApi');
      expect(api.Properties.EndpointConfiguration).toEqual({ Types: ['REGIONAL'] });
      expect(api.Properties.Policy).toEqual({ Version: '2012-10-17', Statement: [aggregatorStatement] });
    });

    test('stage prod: throttle 1000/2000, INFO logs, no data trace, metrics, X-Ray, JSON access logs', () => {
      const [, stage] = onlyResource(template, 'AWS::ApiGateway::Stage');
      expect(stage.Properties).toMatchObject({
        StageName: 'prod',
        TracingEnabled: true,
        MethodSettings: [stageMethodSettings(1000, 2000)],
      });
      const format = (stage.Properties.AccessLogSetting as { Format: string }).Format;
      expect(JSON.parse(format)).toEqual(ACCESS_LOG_FIELDS);
    });

    test('every route of the definition, with its method, operation name, IAM auth and timeout', () => {
      const paths = apiResourcePaths(template);
      const methods = resources(template, 'AWS::ApiGateway::Method').map(([, m]) => {
        const integration = m.Properties.Integration as Json;
        return {
          path: paths.get((m.Properties.ResourceId as { Ref: string }).Ref),
          method: m.Properties.HttpMethod,
          operationId: m.Properties.OperationName,
          auth: m.Properties.AuthorizationType,
          timeout: integration.TimeoutInMillis,
          streaming: integration.ResponseTransferMode === 'STREAM',
          uri: joined(integration.Uri),
        };
      });
      const expected = regionalApiDefinition(built.config).routes.map((route) => ({
        path: route.path,
        method: route.method,
        operationId: route.operationId,
        auth: 'AWS_IAM',
        timeout: route.path.startsWith('/inference') ? 900_000 : 29_000,
        streaming: route.path.startsWith('/inference'),
      }));
      expect(methods.map(({ uri: _uri, ...rest }) => rest)).toEqual(expect.arrayContaining(expected));
      expect(methods).toHaveLength(expected.length);
      // The specified method sets, spelled out once.
      const on = (path: string) => methods.filter((m) => m.path === path).map((m) => m.method);
      expect(on('/api/v1/{proxy+}').sort()).toEqual([
        'DELETE',
        'GET',
        'HEAD',
        'OPTIONS',
        'PATCH',
        'POST',
        'PUT',
      ]);
      expect(on('/inference/{proxy+}').sort()).toEqual(['GET', 'HEAD', 'POST']);
      for (const m of methods) {
        expect(m.uri).toMatch(
          m.streaming ? /\/2021-11-15\/functions\/.*\/response-streaming-invocations$/ : /\/invocations$/,
        );
      }
    });

    test('the stage URL is published for the aggregator in the global region, and removed on delete', () => {
      const [, publication] = onlyResource(template, 'Custom::AWS');
      const create = JSON.parse(joined(publication.Properties.Create).replace(/<token>/g, 'X')) as Json;
      expect(create).toEqual({
        service: 'SSM',
        action: 'putParameter',
        region: 'us-east-2',
        parameters: {
          Name: '/gco/regional-api/us-east-1',
          Value: 'https://X.execute-api.us-east-1.X/X/',
          Type: 'String',
          Overwrite: true,
          Description: 'gco regional API of us-east-1 (aggregator discovery)',
        },
        physicalResourceId: { id: '/gco/regional-api/us-east-1' },
      });
      expect(JSON.parse(publication.Properties.Delete as string)).toEqual({
        service: 'SSM',
        action: 'deleteParameter',
        region: 'us-east-2',
        parameters: { Name: '/gco/regional-api/us-east-1' },
        ignoreErrorCodesMatching: 'ParameterNotFound',
      });
      const statement = iamStatements(template).find((s) => list(s.Action).includes('ssm:PutParameter'));
      expect(statement).toMatchObject({ Action: ['ssm:PutParameter', 'ssm:DeleteParameter'] });
      expect(joined(statement?.Resource)).toBe(
        'arn:<token>:ssm:us-east-2:<token>:parameter/gco/regional-api/us-east-1',
      );
    });
  });

  describe('regional proxies', () => {
    test.each([
      ['control-plane-proxy', 30],
      ['inference-stream-proxy', 900],
    ])('%s: Node.js 24 on arm64 in the private subnets, %i s, regional mode', (entry, timeout) => {
      const fn = resources(template, 'AWS::Lambda::Function').find(
        ([, f]) =>
          (f.Properties.Environment as { Variables: Json } | undefined)?.Variables.POWERTOOLS_SERVICE_NAME ===
          entry,
      )?.[1];
      expect(fn?.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Timeout: timeout,
        TracingConfig: { Mode: 'Active' },
        VpcConfig: {
          SubnetIds: [
            { Ref: expect.stringMatching(/NetworkVpcprivate/) },
            { Ref: expect.stringMatching(/NetworkVpcprivate/) },
          ],
          SecurityGroupIds: [{ 'Fn::GetAtt': [expect.stringMatching(/^ProxiesSecurityGroup/), 'GroupId'] }],
        },
      });
      const env = (fn?.Properties.Environment as { Variables: Json }).Variables;
      expect(env).toMatchObject({
        MODE: 'regional',
        BACKEND_HOSTNAME: 'backend.gco.gco.internal',
        ALB_HOST_PARAMETER: { Ref: expect.stringMatching(/^AlbHost/) },
        INTERNAL_CA_PEM: { 'Fn::GetAtt': [expect.stringMatching(/^AlbCertificate/), 'CaCertificatePem'] },
      });
      expect(joined(env.SIGNING_KEY_SECRET_ARN)).toBe(
        'arn:<token>:secretsmanager:us-east-1:<token>:secret:gco/signing-key',
      );
    });

    test('least privilege: the ALB host parameter, DescribeLoadBalancers (no resource scoping), the key replica', () => {
      for (const role of ['ProxiesControlPlaneProxyRole', 'ProxiesInferenceStreamProxyRole']) {
        const statements = statementsOfRole(template, role).filter((s) => s.Sid !== undefined);
        expect(statements).toEqual(
          expect.arrayContaining([
            { Sid: 'ReadAlbHost', Effect: 'Allow', Action: 'ssm:GetParameter', Resource: expect.anything() },
            {
              Sid: 'VerifyAlbIsInternalAndOwned',
              Effect: 'Allow',
              Action: 'elasticloadbalancing:DescribeLoadBalancers',
              Resource: '*',
            },
            {
              Sid: 'ReadSigningKey',
              Effect: 'Allow',
              Action: 'secretsmanager:GetSecretValue',
              Resource: expect.anything(),
            },
          ]),
        );
        const read = statements.find((s) => s.Sid === 'ReadSigningKey');
        expect(joined(read?.Resource)).toBe(
          'arn:<token>:secretsmanager:us-east-1:<token>:secret:gco/signing-key-??????',
        );
        // The parameter ARN is built from the parameter's own name (a reference to AlbHost).
        const albHost = statements.find((s) => s.Sid === 'ReadAlbHost')?.Resource;
        expect(joined(albHost)).toBe('arn:<token>:ssm:us-east-1:<token>:parameter<token>');
        expect(JSON.stringify(albHost)).toMatch(/"Ref":"AlbHost[0-9A-F]+"/);
      }
    });

    test('their security group opens connections to the ALB and the VPC endpoints only', () => {
      const egress = resources(template, 'AWS::EC2::SecurityGroupEgress')
        .map(([, r]) => r.Properties)
        .filter((p) => JSON.stringify(p.GroupId).includes('ProxiesSecurityGroup'));
      expect(
        egress.map((p) => [
          p.FromPort,
          p.ToPort,
          (p.DestinationSecurityGroupId as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0],
        ]),
      ).toEqual(
        expect.arrayContaining([
          [443, 443, expect.stringMatching(/^AlbSecurityGroup/)],
          [443, 443, expect.stringMatching(/^NetworkEndpointSecurityGroup/)],
        ]),
      );
      expect(egress).toHaveLength(2);
      const [, sg] =
        resources(template, 'AWS::EC2::SecurityGroup').find(([id]) =>
          id.startsWith('ProxiesSecurityGroup'),
        ) ?? [];
      expect(sg?.Properties.SecurityGroupEgress).toBeUndefined();
    });
  });

  describe('internal ALB (docs/regional-stack.md)', () => {
    test('internal, in the private subnets, idle timeout 300 s, invalid headers dropped, access logs on', () => {
      const [, alb] = onlyResource(template, 'AWS::ElasticLoadBalancingV2::LoadBalancer');
      expect(alb.Properties.Scheme).toBe('internal');
      expect(alb.Properties.Subnets).toEqual([
        { Ref: expect.stringMatching(/NetworkVpcprivate/) },
        { Ref: expect.stringMatching(/NetworkVpcprivate/) },
      ]);
      expect(alb.Properties.LoadBalancerAttributes).toEqual(
        expect.arrayContaining([
          { Key: 'idle_timeout.timeout_seconds', Value: '300' },
          { Key: 'routing.http.drop_invalid_header_fields.enabled', Value: 'true' },
          { Key: 'access_logs.s3.enabled', Value: 'true' },
        ]),
      );
    });

    test('HTTPS:443 with the internal-CA certificate for the backend name, TLS 1.3 with 1.2 fallback', () => {
      const [, listener] = onlyResource(template, 'AWS::ElasticLoadBalancingV2::Listener');
      const tgs = targetGroupIds(template);
      expect(listener.Properties).toMatchObject({
        Port: 443,
        Protocol: 'HTTPS',
        SslPolicy: 'ELBSecurityPolicy-TLS13-1-2-Res-2021-06',
        Certificates: [
          { CertificateArn: { 'Fn::GetAtt': [expect.stringMatching(/^AlbCertificate/), 'CertificateArn'] } },
        ],
        DefaultActions: [{ Type: 'forward', TargetGroupArn: { Ref: tgs.get(defaultRoute().service) } }],
      });
      const [, certificate] =
        resources(template, 'Custom::InternalCa').find(([id]) => id.startsWith('AlbCertificate')) ?? [];
      expect(certificate?.Properties).toMatchObject({
        Kind: 'Certificate',
        DnsNames: ['backend.gco.gco.internal'],
      });
    });

    test('the certificate renews itself: a daily schedule invokes the internal-CA function in place', () => {
      const [certificateId, certificate] =
        resources(template, 'Custom::InternalCa').find(([id]) => id.startsWith('AlbCertificate')) ?? [];
      const rules = resources(template, 'AWS::Events::Rule').filter(([id]) =>
        id.startsWith('AlbCertificate'),
      );
      expect(rules).toHaveLength(1);
      const [, rule] = rules[0]!;
      expect(rule.Properties).toMatchObject({ ScheduleExpression: 'rate(1 day)', State: 'ENABLED' });
      const [target] = rule.Properties.Targets as Record<string, unknown>[];
      expect(target).toMatchObject({
        Arn: { 'Fn::GetAtt': [expect.stringMatching(/^InternalCaProviderHandler/), 'Arn'] },
        RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 3600 },
      });
      // The input names the same ACM certificate, CA replica, key-pair secret and names as the resource.
      const input = JSON.stringify(target?.Input);
      expect(input).toContain('CertificateRenewal');
      expect(input).toContain(`"${certificateId}","CertificateArn"`);
      expect(input).toContain(JSON.stringify(certificate?.Properties.CaSecretId).slice(1, -1));
      expect(input).toContain('backend.gco.gco.internal');
      template.hasResourceProperties('AWS::Lambda::Permission', {
        Action: 'lambda:InvokeFunction',
        Principal: 'events.amazonaws.com',
        SourceArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^AlbCertificateRenewal'), 'Arn'] },
      });
    });

    test('listener rules equal contracts/routing.ts listenerRules(): priorities by prefix length, path patterns, target', () => {
      const tgs = targetGroupIds(template);
      const rules = resources(template, 'AWS::ElasticLoadBalancingV2::ListenerRule').map(
        ([, r]) => r.Properties,
      );
      expect(
        rules
          .map((r) => ({
            priority: r.Priority,
            values: (r.Conditions as { Field: string; PathPatternConfig: { Values: string[] } }[])[0]
              ?.PathPatternConfig.Values,
            field: (r.Conditions as { Field: string }[])[0]?.Field,
            target: (r.Actions as { TargetGroupArn: { Ref: string } }[])[0]?.TargetGroupArn.Ref,
          }))
          .sort((a, b) => Number(a.priority) - Number(b.priority)),
      ).toEqual(
        listenerRules().map((rule) => ({
          priority: rule.priority,
          values: [...rule.pathPatterns],
          field: 'path-pattern',
          target: tgs.get(rule.route.service),
        })),
      );
    });

    test('one IP target group per service: HTTPS, GET /healthz every 15 s, 5 s timeout, 2/2, deregistration 900 s', () => {
      const services = [...new Set(ALB_ROUTES.map((r) => r.service))].sort();
      const tgs = resources(template, 'AWS::ElasticLoadBalancingV2::TargetGroup');
      expect([...targetGroupIds(template).keys()].sort()).toEqual(services);
      for (const [, tg] of tgs) {
        expect(tg.Properties).toMatchObject({
          TargetType: 'ip',
          Protocol: 'HTTPS',
          Port: 443,
          HealthCheckPath: '/healthz',
          HealthCheckProtocol: 'HTTPS',
          HealthCheckIntervalSeconds: 15,
          HealthCheckTimeoutSeconds: 5,
          HealthyThresholdCount: 2,
          UnhealthyThresholdCount: 2,
          Matcher: { HttpCode: '200' },
          TargetGroupAttributes: expect.arrayContaining([
            { Key: 'deregistration_delay.timeout_seconds', Value: '900' },
          ]),
          // Auto Mode registers targets only in target groups tagged with the cluster's name.
          Tags: expect.arrayContaining([
            { Key: 'eks:eks-cluster-name', Value: { Ref: expect.stringMatching(/^EksCluster/) } },
          ]),
        });
      }
    });

    test('security group: 443 from the VPC and (accelerator partition) any IPv4; egress only to the pods', () => {
      const sg = albSecurityGroup(template);
      expect(sg?.Properties.SecurityGroupIngress).toEqual([
        expect.objectContaining({
          CidrIp: { 'Fn::GetAtt': [expect.stringMatching(/NetworkVpc/), 'CidrBlock'] },
          FromPort: 443,
          ToPort: 443,
        }),
        expect.objectContaining({ CidrIp: '0.0.0.0/0', FromPort: 443, ToPort: 443 }),
      ]);
      const egress = resources(template, 'AWS::EC2::SecurityGroupEgress')
        .map(([, r]) => r.Properties)
        .filter((p) => JSON.stringify(p.GroupId).includes('AlbSecurityGroup'));
      expect(egress).toEqual([
        expect.objectContaining({
          FromPort: POD_HTTPS_PORT,
          ToPort: POD_HTTPS_PORT,
          DestinationSecurityGroupId: {
            'Fn::GetAtt': [expect.stringMatching(/^EksCluster/), 'ClusterSecurityGroupId'],
          },
        }),
      ]);
    });

    test("the ALB's DNS name is in SSM under /<project>/alb-host", () => {
      template.hasResourceProperties('AWS::SSM::Parameter', {
        Name: '/gco/alb-host',
        Type: 'String',
        Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('^AlbLoadBalancer'), 'DNSName'] },
      });
    });
  });

  test('accelerator endpoint group in this region on the global listener, pointing at the ALB', () => {
    const [, group] = onlyResource(template, 'AWS::GlobalAccelerator::EndpointGroup');
    expect(group.Properties).toEqual({
      ListenerArn: { Ref: expect.stringMatching(/^SsmParameterValuegcoacceleratorlistenerarn/) },
      EndpointGroupRegion: 'us-east-1',
      EndpointConfigurations: [
        {
          EndpointId: { Ref: expect.stringMatching(/^AlbLoadBalancer/) },
          ClientIPPreservationEnabled: true,
          Weight: 128,
        },
      ],
      TrafficDialPercentage: 100,
      HealthCheckProtocol: 'HTTPS',
      HealthCheckPort: 443,
      HealthCheckPath: '/healthz',
      HealthCheckIntervalSeconds: 10,
      ThresholdCount: 3,
    });
    // The weak reference: an SSM parameter type, resolved by CloudFormation on every deploy.
    const parameterId = (group.Properties.ListenerArn as { Ref: string }).Ref;
    expect(template.toJSON().Parameters[parameterId]).toEqual({
      Type: 'AWS::SSM::Parameter::Value<String>',
      Default: '/gco/accelerator-listener-arn',
    });
  });

  describe('EKS', () => {
    test('Kubernetes 1.34 in Auto Mode, private endpoint, all control-plane logs, KMS secrets encryption', () => {
      const [, cluster] = onlyResource(template, 'AWS::EKS::Cluster');
      expect(cluster.Properties).toMatchObject({
        Name: 'gco-us-east-1',
        Version: '1.34',
        ComputeConfig: { Enabled: true, NodePools: ['system', 'general-purpose'] },
        KubernetesNetworkConfig: { ElasticLoadBalancing: { Enabled: true } },
        ResourcesVpcConfig: { EndpointPrivateAccess: true, EndpointPublicAccess: false },
        Logging: {
          ClusterLogging: {
            EnabledTypes: ['api', 'audit', 'authenticator', 'controllerManager', 'scheduler'].map((Type) => ({
              Type,
            })),
          },
        },
        EncryptionConfig: [
          {
            Provider: { KeyArn: { 'Fn::GetAtt': [expect.stringMatching(/^EksSecretsKey/), 'Arn'] } },
            Resources: ['secrets'],
          },
        ],
      });
      template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
      template.hasResourceProperties('AWS::EKS::Addon', { AddonName: 'metrics-server' });
      // The kubectl provider's layer: kubectl 1.34 for the 1.34 API server.
      template.hasResourceProperties('AWS::Lambda::LayerVersion', {
        Description: Match.stringLikeRegexp('kubectl'),
      });
    });

    test('one Pod Identity association per service account, each with its own role', () => {
      const associations = resources(template, 'AWS::EKS::PodIdentityAssociation').map(
        ([, a]) => a.Properties,
      );
      expect(associations.map((a) => a.ServiceAccount).sort()).toEqual([...CLUSTER_SERVICES].sort());
      for (const a of associations) expect(a.Namespace).toBe(CLUSTER_NAMESPACE);
      expect(new Set(associations.map((a) => JSON.stringify(a.RoleArn))).size).toBe(CLUSTER_SERVICES.length);
      for (const [id, role] of resources(template, 'AWS::IAM::Role').filter(([id]) =>
        /^Services.*Role/.test(id),
      )) {
        expect([id, role.Properties.AssumeRolePolicyDocument]).toEqual([
          id,
          {
            Version: '2012-10-17',
            Statement: [
              {
                Effect: 'Allow',
                Principal: { Service: 'pods.eks.amazonaws.com' },
                Action: ['sts:AssumeRole', 'sts:TagSession'],
              },
            ],
          },
        ]);
      }
    });

    test('pod permissions: central tables in the global region by name, regional cost data, secrets', () => {
      const actionsOn = (role: string, fragment: string): string[] =>
        statementsOfRole(template, role)
          .filter((s) => list(s.Resource).some((r) => joined(r).includes(fragment)))
          .flatMap((s) => list(s.Action) as string[])
          .sort();
      const table = (name: string) => `:dynamodb:us-east-2:<token>:table/gco-${name}`;
      // DeleteItem: a submission whose job cannot be written releases its Idempotency-Key (docs/queue.md).
      expect(actionsOn('ServicesManifestProcessorRole', table('job-queue'))).toEqual([
        'dynamodb:DeleteItem',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
      ]);
      expect(actionsOn('ServicesManifestProcessorRole', table('job-templates'))).toEqual([
        'dynamodb:DeleteItem',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:Scan',
      ]);
      expect(actionsOn('ServicesInferenceProxyRole', table('inference-endpoints'))).toEqual([
        'dynamodb:GetItem',
      ]);
      expect(actionsOn('ServicesInferenceProxyRole', table('job-queue'))).toEqual([]);
      expect(actionsOn('ServicesHealthMonitorRole', ':dynamodb:')).toEqual([]);
      // Every pod reads the TLS key pair; cost-monitor (no envelope) does not read the signing key.
      for (const role of [
        'ServicesManifestProcessorRole',
        'ServicesHealthMonitorRole',
        'ServicesInferenceProxyRole',
      ]) {
        expect(actionsOn(role, 'secret:gco/signing-key')).toContain('secretsmanager:GetSecretValue');
      }
      expect(actionsOn('ServicesCostMonitorRole', 'secret:gco/signing-key')).toEqual([]);
      const costMonitor = statementsOfRole(template, 'ServicesCostMonitorRole');
      expect(costMonitor.find((s) => s.Sid === 'CostReportObjects')).toMatchObject({
        Action: ['s3:GetObject', 's3:PutObject'],
      });
      expect(costMonitor.find((s) => s.Sid === 'ScheduledWindowClaims')).toMatchObject({
        Resource: { 'Fn::GetAtt': [expect.stringMatching(/CostReportsTable/), 'Arn'] },
      });
    });

    test('the applied manifests are cluster/k8s with this region filled in, incl. the cost-monitor NetworkPolicy', () => {
      const objects = appliedManifests(template);
      const byKindName = (kind: string, name: string) =>
        objects.find((o) => o.kind === kind && (o.metadata as { name: string }).name === name);
      expect(byKindName('NetworkPolicy', 'cost-monitor-from-manifest-processor')).toMatchObject({
        spec: {
          podSelector: { matchLabels: { 'app.kubernetes.io/name': 'cost-monitor' } },
          ingress: [
            { from: [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'manifest-processor' } } }] },
          ],
        },
      });
      for (const service of CLUSTER_SERVICES) {
        const deployment = byKindName('Deployment', service) as {
          spec: {
            template: { spec: { containers: { image: string; env: { name: string; value: string }[] }[] } };
          };
        };
        const container = deployment.spec.template.spec.containers[0];
        // The image of this service's DockerImageAsset, in the account's CDK asset repository.
        expect(container?.image).toMatch(
          /^<token>\.dkr\.ecr\.us-east-1\.<token>\/cdk-hnb659fds-container-assets-<token>-us-east-1:[0-9a-f]{64}$/,
        );
        expect(container?.env).toEqual(expect.arrayContaining([{ name: 'REGION', value: 'us-east-1' }]));
      }
      expect(byKindName('Deployment', 'manifest-processor')).toMatchObject({
        spec: {
          template: {
            spec: {
              containers: [{ env: expect.arrayContaining([{ name: 'GLOBAL_REGION', value: 'us-east-2' }]) }],
            },
          },
        },
      });
      expect(
        new Set(
          objects.filter((o) => o.kind === 'TargetGroupBinding').map((o) => (o.spec as Json).targetGroupARN),
        ),
      ).toEqual(new Set(['<token>']));
    });

    test('the images are Docker assets built from cluster/Dockerfile, one per service (SERVICE build argument), with the repository root as context', () => {
      const assembly = built.app.synth();
      const manifests = assembly
        .getStackArtifact(stack.artifactId)
        .dependencies.filter((d): d is AssetManifestArtifact => d instanceof AssetManifestArtifact);
      const images = manifests.flatMap((m) => Object.values(m.contents.dockerImages ?? {}));
      expect(images.map((i) => [i.source.dockerFile, i.source.dockerBuildArgs?.SERVICE]).sort()).toEqual(
        CLUSTER_SERVICES.map((s) => ['cluster/Dockerfile', s]).sort(),
      );
      for (const image of images) expect(image.source.platform).toBe('linux/amd64');
    });
  });

  test('regional cost-report table and bucket (encrypted, SSL only, versioned, lifecycle)', () => {
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      TableName: 'gco-cost-reports',
      TimeToLiveSpecification: { AttributeName: 'expires_at', Enabled: true },
    });
    const [, bucket] =
      resources(template, 'AWS::S3::Bucket').find(([id]) => id.includes('CostReports')) ?? [];
    expect(bucket?.Properties).toMatchObject({
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      VersioningConfiguration: { Status: 'Enabled' },
      LifecycleConfiguration: {
        Rules: [
          expect.objectContaining({ Status: 'Enabled', NoncurrentVersionExpiration: { NoncurrentDays: 30 } }),
        ],
      },
      LoggingConfiguration: expect.objectContaining({ LogFilePrefix: 's3/cost-reports/' }),
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: Match.stringLikeRegexp('CostReports') },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  test('VPC: flow logs of all traffic, gateway and interface endpoints', () => {
    template.hasResourceProperties('AWS::EC2::FlowLog', { TrafficType: 'ALL', ResourceType: 'VPC' });
    const services = resources(template, 'AWS::EC2::VPCEndpoint').map(([, e]) =>
      joined(e.Properties.ServiceName),
    );
    for (const suffix of [
      's3',
      'dynamodb',
      'ecr.api',
      'ecr.dkr',
      'secretsmanager',
      'ssm',
      'elasticloadbalancing',
    ]) {
      expect(services.some((s) => s.endsWith(`.${suffix}`))).toBe(true);
    }
  });

  test('outputs: regional API URL, ALB DNS name, cluster name', () => {
    const outputs = Object.keys(template.toJSON().Outputs as Json);
    expect(outputs).toEqual(expect.arrayContaining(['RegionalApiUrl', 'AlbDnsName', 'ClusterName']));
  });

  test('no wildcard action anywhere; resource * only where AWS offers no resource scoping', () => {
    const statements = iamStatements(template);
    for (const statement of statements) {
      for (const action of list(statement.Action) as string[]) expect(action).not.toMatch(/\*/);
    }
    const unscoped = statements
      .filter((s) => list(s.Resource).includes('*'))
      .flatMap((s) => list(s.Action) as string[]);
    // Each of these has no resource-level permissions in IAM.
    expect([...new Set(unscoped)].sort()).toEqual([
      'ec2:DescribeSpotPriceHistory', // manifest-processor: spot-gated queue dispatch
      'elasticloadbalancing:DescribeLoadBalancers', // regional proxies: verify the ALB (docs/edge-lambdas.md)
      'xray:PutTelemetryRecords', // X-Ray tracing of the Lambda functions
      'xray:PutTraceSegments',
    ]);
  });

  describe('cost data source: OpenCost and its in-cluster Prometheus (docs/cost.md)', () => {
    type Chart = { Properties: Json; DependsOn?: string[] };
    const charts = (): Map<string, [string, Chart]> =>
      new Map(
        Object.entries(template.findResources('Custom::AWSCDK-EKS-HelmChart') as Record<string, Chart>).map(
          ([id, chart]) => [chart.Properties.Release as string, [id, chart]],
        ),
      );
    const chartOf = (release: string): [string, Chart] => {
      const found = charts().get(release);
      if (!found) throw new Error(`no Helm release ${release}`);
      return found;
    };
    const valuesOf = (release: string): Json =>
      JSON.parse(joined(chartOf(release)[1].Properties.Values)) as Json;

    test('exactly two Helm releases, pinned charts, in the opencost namespace, not creating it', () => {
      expect([...charts().keys()].sort()).toEqual(['opencost', 'prometheus']);
      for (const [release, chart] of Object.entries(COST_CHARTS)) {
        expect(chartOf(release)[1].Properties).toMatchObject({
          Chart: chart.chart,
          Repository: chart.repository,
          Version: chart.version,
          Namespace: COST_NAMESPACE,
          Wait: true,
        });
      }
    });

    test('OpenCost reads the in-cluster Prometheus, runs the pinned image, no UI', () => {
      const values = valuesOf('opencost') as { opencost: Json; fullnameOverride: string };
      expect(values.fullnameOverride).toBe('opencost');
      expect(values.opencost).toMatchObject({
        ui: { enabled: false },
        prometheus: {
          internal: {
            enabled: true,
            serviceName: 'prometheus-server',
            namespaceName: COST_NAMESPACE,
            port: 80,
          },
        },
        exporter: {
          image: { fullImageName: `ghcr.io/opencost/opencost:${THIRD_PARTY_IMAGES.opencost.tag}` },
          securityContext: {
            allowPrivilegeEscalation: false,
            runAsNonRoot: true,
            readOnlyRootFilesystem: true,
          },
        },
      });
    });

    test('Prometheus: server only, persistent, pinned images, scrapes OpenCost on its API port', () => {
      const values = valuesOf('prometheus') as Json & { server: Json; extraScrapeConfigs: string };
      for (const off of [
        'alertmanager',
        'prometheus-pushgateway',
        'prometheus-node-exporter',
        'kube-state-metrics',
      ]) {
        expect(values[off]).toEqual({ enabled: false });
      }
      expect(values.server).toMatchObject({
        image: { repository: 'quay.io/prometheus/prometheus', tag: THIRD_PARTY_IMAGES.prometheus.tag },
        persistentVolume: { enabled: true, storageClass: 'gco-ebs-gp3' },
      });
      expect(values.extraScrapeConfigs).toContain('job_name: opencost');
      expect(values.extraScrapeConfigs).toContain(`port: ${OPENCOST_API_PORT}`);
    });

    test('both releases wait for the cluster/k8s manifests; OpenCost after Prometheus', () => {
      const manifestIds = resources(template, 'Custom::AWSCDK-EKS-KubernetesResource').map(([id]) => id);
      const [prometheusId, prometheus] = chartOf('prometheus');
      const [, opencost] = chartOf('opencost');
      const namespacesFile = manifestIds.find((id) => id.includes('00namespaces'));
      expect(namespacesFile).toBeDefined();
      expect(prometheus.DependsOn).toEqual(expect.arrayContaining([namespacesFile]));
      expect(opencost.DependsOn).toEqual(expect.arrayContaining([prometheusId, namespacesFile]));
    });

    test("cost-monitor's OPENCOST_URL is the OpenCost Service", () => {
      const deployment = appliedManifests(template).find(
        (d) => d.kind === 'Deployment' && (d.metadata as Json).name === 'cost-monitor',
      ) as { spec: { template: { spec: { containers: { env: { name: string; value: string }[] }[] } } } };
      const env = deployment.spec.template.spec.containers[0]?.env ?? [];
      expect(env.find((e) => e.name === 'OPENCOST_URL')?.value).toBe(OPENCOST_URL);
      expect(OPENCOST_URL).toBe('http://opencost.opencost.svc:9003');
    });

    test('NetworkPolicies: OpenCost admits cost-monitor and Prometheus on 9003; Prometheus admits OpenCost', () => {
      const policies = appliedManifests(template).filter(
        (d) => d.kind === 'NetworkPolicy' && (d.metadata as Json).namespace === COST_NAMESPACE,
      ) as { metadata: { name: string }; spec: Json }[];
      const byName = new Map(policies.map((p) => [p.metadata.name, p.spec]));
      expect([...byName.keys()].sort()).toEqual([
        'default-deny-ingress',
        'opencost-from-cost-monitor-and-prometheus',
        'prometheus-from-opencost',
      ]);
      expect(byName.get('default-deny-ingress')).toEqual({ podSelector: {}, policyTypes: ['Ingress'] });
      expect(byName.get('opencost-from-cost-monitor-and-prometheus')).toEqual({
        podSelector: { matchLabels: { 'app.kubernetes.io/name': 'opencost' } },
        policyTypes: ['Ingress'],
        ingress: [
          {
            from: [
              {
                namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': CLUSTER_NAMESPACE } },
                podSelector: { matchLabels: { 'app.kubernetes.io/name': 'cost-monitor' } },
              },
              { podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } } },
            ],
            ports: [{ protocol: 'TCP', port: OPENCOST_API_PORT }],
          },
        ],
      });
      expect(byName.get('prometheus-from-opencost')).toEqual({
        podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } },
        policyTypes: ['Ingress'],
        ingress: [
          {
            from: [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'opencost' } } }],
            ports: [{ protocol: 'TCP', port: 9090 }],
          },
        ],
      });
    });

    test('no AWS permission for the cost data source: no role or Pod Identity association for it', () => {
      const associations = resources(template, 'AWS::EKS::PodIdentityAssociation').map(
        ([, a]) => a.Properties.Namespace,
      );
      expect(new Set(associations)).toEqual(new Set([CLUSTER_NAMESPACE]));
    });

    test('the Auto Mode EBS StorageClass of the Prometheus volume: gp3, encrypted', () => {
      const storageClass = appliedManifests(template).find((d) => d.kind === 'StorageClass') as Json;
      expect(storageClass).toMatchObject({
        metadata: { name: 'gco-ebs-gp3' },
        provisioner: 'ebs.csi.eks.amazonaws.com',
        parameters: { type: 'gp3', encrypted: 'true' },
      });
    });
  });

  test('no warning annotation on the stack (CDK region and deprecation warnings are errors here)', () => {
    expect(cdkWarnings(stack)).toEqual([]);
  });

  test('cdk-nag: no unsuppressed AwsSolutions or Serverless error', () => {
    expect(nagErrors(stack)).toEqual([]);
  });
});

describe('api_gateway.regional_api_enabled: the account opted in', () => {
  let template: Template;
  let stack: RegionalStack;

  beforeAll(() => {
    stack = regionalStackOf(build({ api_gateway: { regional_api_enabled: true } }), 'us-east-1');
    template = Template.fromStack(stack);
  });

  test('statement 2: the account principals on every route, the aggregator excluded by condition', () => {
    const [, api] = onlyResource(template, 'AWS::ApiGateway::RestApi');
    expect(api.Properties.Policy).toEqual({
      Version: '2012-10-17',
      Statement: [aggregatorStatement, accountStatement],
    });
  });

  test('the accelerator still reaches the ALB', () => {
    expect(resources(template, 'AWS::GlobalAccelerator::EndpointGroup')).toHaveLength(1);
  });

  test('cdk-nag: no unsuppressed error', () => {
    expect(nagErrors(stack)).toEqual([]);
  });
});

describe('aws-us-gov partition (no Global Accelerator)', () => {
  let built: PlatformApp;

  beforeAll(() => {
    built = build({ global_region: 'us-gov-west-1', regions: ['us-gov-west-1', 'us-gov-east-1'] });
  });

  test.each(['us-gov-west-1', 'us-gov-east-1'])(
    '%s: regional API open to the account (both statements)',
    (region) => {
      const template = Template.fromStack(regionalStackOf(built, region));
      const [, api] = onlyResource(template, 'AWS::ApiGateway::RestApi');
      expect(api.Properties.Policy).toEqual({
        Version: '2012-10-17',
        Statement: [aggregatorStatement, accountStatement],
      });
    },
  );

  test.each(['us-gov-west-1', 'us-gov-east-1'])(
    '%s: no endpoint group, and the ALB admits the VPC only',
    (region) => {
      const template = Template.fromStack(regionalStackOf(built, region));
      expect(resources(template, 'AWS::GlobalAccelerator::EndpointGroup')).toHaveLength(0);
      const sg = albSecurityGroup(template);
      expect(sg?.Properties.SecurityGroupIngress).toEqual([
        expect.objectContaining({
          CidrIp: { 'Fn::GetAtt': [expect.stringMatching(/NetworkVpc/), 'CidrBlock'] },
          FromPort: 443,
        }),
      ]);
    },
  );

  test('the URL parameter goes to the global region of this partition', () => {
    const template = Template.fromStack(regionalStackOf(built, 'us-gov-east-1'));
    const [, publication] = onlyResource(template, 'Custom::AWS');
    expect(joined(publication.Properties.Create)).toContain('"region":"us-gov-west-1"');
    expect(joined(publication.Properties.Create)).toContain('"Name":"/gco/regional-api/us-gov-east-1"');
  });

  test('no template hard-codes a partition', () => {
    const hardCoded = ['arn', 'aws', ''].join(':');
    for (const stack of built.regionalStacks.values()) {
      expect(JSON.stringify(Template.fromStack(stack).toJSON())).not.toContain(hardCoded);
    }
  });

  test.each(['us-gov-west-1', 'us-gov-east-1'])('%s: cdk-nag: no unsuppressed error', (region) => {
    expect(nagErrors(regionalStackOf(built, region))).toEqual([]);
  });
});

// ---- issue 16: a region outside Global Accelerator; removal_policy and resource_generation ---------

describe('a deployment region Global Accelerator does not support (lib/accelerator-regions.ts)', () => {
  let built: PlatformApp;

  beforeAll(() => {
    built = build({ regions: ['us-east-1', 'mx-central-1'] });
  });

  test('mx-central-1: no endpoint group, no listener parameter; its API is open to the account', () => {
    const template = Template.fromStack(regionalStackOf(built, 'mx-central-1'));
    expect(resources(template, 'AWS::GlobalAccelerator::EndpointGroup')).toHaveLength(0);
    expect(JSON.stringify(template.toJSON())).not.toContain('accelerator-listener-arn');
    const [, api] = onlyResource(template, 'AWS::ApiGateway::RestApi');
    expect(api.Properties.Policy).toEqual({
      Version: '2012-10-17',
      Statement: [aggregatorStatement, accountStatement],
    });
  });

  test('us-east-1 is unchanged: endpoint group from the SSM parameter, API closed to the account', () => {
    const template = Template.fromStack(regionalStackOf(built, 'us-east-1'));
    const [, group] = onlyResource(template, 'AWS::GlobalAccelerator::EndpointGroup');
    expect(group.Properties.EndpointGroupRegion).toBe('us-east-1');
    const parameterId = (group.Properties.ListenerArn as { Ref: string }).Ref;
    expect(template.toJSON().Parameters[parameterId]).toEqual({
      Type: 'AWS::SSM::Parameter::Value<String>',
      Default: '/gco/accelerator-listener-arn',
    });
    const [, api] = onlyResource(template, 'AWS::ApiGateway::RestApi');
    expect(api.Properties.Policy).toEqual({ Version: '2012-10-17', Statement: [aggregatorStatement] });
  });

  test('no template of the app holds a CDK cross-region export writer or reader', () => {
    for (const stack of [built.globalStack, ...built.regionalStacks.values()]) {
      const json = JSON.stringify(Template.fromStack(stack).toJSON());
      expect(json).not.toMatch(/CrossRegionExport|ExportsWriter|ExportsReader|Fn::ImportValue/);
    }
  });

  test('mx-central-1: cdk-nag: no unsuppressed error', () => {
    expect(nagErrors(regionalStackOf(built, 'mx-central-1'))).toEqual([]);
  });
});

describe('removal_policy and resource_generation across every stack of the app', () => {
  const everything = { analytics_api: { enabled: true, warehouse_enabled: true } };
  let retained: PlatformApp;
  let destroyed: PlatformApp;

  interface Lifecycle extends Resource {
    DeletionPolicy?: string;
    UpdateReplacePolicy?: string;
  }
  const templatesOf = (app: PlatformApp): [string, Record<string, Lifecycle>][] =>
    [app.globalStack, ...app.regionalStacks.values(), app.analyticsStack!].map((stack) => [
      stack.stackName,
      Template.fromStack(stack).toJSON().Resources as Record<string, Lifecycle>,
    ]);
  /** The data resources: what `removal_policy` governs (docs/operations.md, "Teardown and redeploy"). */
  const isData = (id: string, r: Lifecycle): boolean =>
    [
      'AWS::DynamoDB::GlobalTable',
      'AWS::S3::Bucket',
      'AWS::Kinesis::Stream',
      'AWS::RedshiftServerless::Namespace',
    ].includes(r.Type) ||
    (r.Type === 'AWS::Logs::LogGroup' &&
      /^(Waf|GlobalApiAccessLogs|RegionalApiAccessLogs|ApiAccessLogs|ServicesPlatformMetricsLogs)/.test(id));
  // API Gateway's account-level logging role and setting, shared by every API of the region.
  const ACCOUNT_LEVEL = ['AWS::IAM::Role', 'AWS::ApiGateway::Account'];
  /** Every `…Name` property of every resource, as `stack/logicalId/property=value`. */
  const namesOf = (app: PlatformApp): Map<string, string> =>
    new Map(
      templatesOf(app).flatMap(([stack, rs]) =>
        Object.entries(rs).flatMap(([id, r]) =>
          Object.entries(r.Properties ?? {})
            .filter(([key, value]) => key.endsWith('Name') && typeof value === 'string')
            .map(([key, value]): [string, string] => [`${stack}/${id}/${key}`, value as string]),
        ),
      ),
    );

  beforeAll(() => {
    retained = build(everything);
    destroyed = build({ ...everything, removal_policy: 'destroy', resource_generation: 2 });
  });

  test('"retain" (default): every data resource is retained on delete and on replacement', () => {
    const data = templatesOf(retained).flatMap(([, rs]) =>
      Object.entries(rs).filter(([id, r]) => isData(id, r)),
    );
    // 5 central + 1 regional + 3 analytics tables, 2 buckets, the stream, the namespace, 5 log groups.
    expect(data).toHaveLength(18);
    for (const [id, r] of data) {
      expect([id, r.DeletionPolicy, r.UpdateReplacePolicy]).toEqual([id, 'Retain', 'Retain']);
    }
  });

  test('"destroy": every data resource is deleted, buckets emptied first; nothing else is retained', () => {
    for (const [, rs] of templatesOf(destroyed)) {
      const entries = Object.entries(rs);
      for (const [id, r] of entries.filter(([logicalId, res]) => isData(logicalId, res))) {
        expect([id, r.DeletionPolicy, r.UpdateReplacePolicy]).toEqual([id, 'Delete', 'Delete']);
      }
      for (const [id] of entries.filter(([, r]) => r.Type === 'AWS::S3::Bucket')) {
        const autoDelete = entries.filter(
          ([, r]) =>
            r.Type === 'Custom::S3AutoDeleteObjects' &&
            JSON.stringify(r.Properties.BucketName) === JSON.stringify({ Ref: id }),
        );
        expect(autoDelete).toHaveLength(1);
      }
      const leftovers = entries.filter(
        ([, r]) => r.DeletionPolicy === 'Retain' && !ACCOUNT_LEVEL.includes(r.Type),
      );
      expect(leftovers.map(([id, r]) => `${r.Type} ${id}`)).toEqual([]);
    }
  });

  test('generation 1 keeps every name; generation 2 renames exactly the fixed names of retained resources', () => {
    const before = namesOf(retained);
    const after = namesOf(destroyed);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    const renamed = [...before].filter(([key, name]) => after.get(key) !== name).map(([, name]) => name);
    expect(renamed.sort()).toEqual(
      [
        '/gco/us-east-1/platform-metrics',
        'aws-waf-logs-gco-global-api',
        'gco-analytics', // the warehouse namespace…
        'gco-analytics', // …and its workgroup
        'gco-analytics-applications',
        'gco-analytics-authorizations',
        'gco-analytics-events',
        'gco-analytics-idempotency',
        'gco-cost-reports',
        'gco-inference-endpoints',
        'gco-job-queue',
        'gco-job-templates',
        'gco-webhook-deliveries',
        'gco-webhooks',
      ].sort(),
    );
    for (const [key, name] of before) {
      if (after.get(key) !== name) expect(after.get(key)).toBe(`${name}-g2`);
    }
  });

  test('the services and their IAM grants follow the generation', () => {
    const regional = JSON.stringify(Template.fromStack(regionalStackOf(destroyed, 'us-east-1')).toJSON());
    expect(regional).toContain('gco-job-queue-g2');
    expect(regional).not.toMatch(/gco-job-queue(?!-g2)/);
    const analytics = JSON.stringify(Template.fromStack(destroyed.analyticsStack!).toJSON());
    // Whole names only: alarm names such as gco-analytics-events-errors are not resource names.
    expect(analytics).not.toMatch(/gco-analytics-(applications|authorizations|idempotency|events)(?![\w-])/);
    expect(analytics).toContain('gco-analytics-events-g2');
  });

  test('"destroy": cdk-nag: no unsuppressed error in any stack', () => {
    for (const stack of [
      destroyed.globalStack,
      ...destroyed.regionalStacks.values(),
      destroyed.analyticsStack!,
    ]) {
      expect(nagErrors(stack)).toEqual([]);
    }
  });
});

describe('platform metrics (EMF): log group, publisher grants, pod environment, certificate identity', () => {
  let stack: RegionalStack;
  let template: Template;
  let destroyTemplate: Template;

  beforeAll(() => {
    stack = regionalStackOf(build({}), 'us-east-1');
    template = Template.fromStack(stack);
    destroyTemplate = Template.fromStack(regionalStackOf(build({ removal_policy: 'destroy' }), 'us-east-1'));
  });

  const metricsLogGroupId = (t: Template): string => {
    const found = resources(t, 'AWS::Logs::LogGroup').filter(
      ([, g]) => g.Properties.LogGroupName === '/gco/us-east-1/platform-metrics',
    );
    expect(found).toHaveLength(1);
    return found[0]![0];
  };

  test('one log group per region, 3 months, kept by default and deleted with removal_policy destroy', () => {
    const id = metricsLogGroupId(template);
    expect(template.toJSON().Resources[id]).toMatchObject({
      Type: 'AWS::Logs::LogGroup',
      Properties: { LogGroupName: '/gco/us-east-1/platform-metrics', RetentionInDays: 90 },
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
    expect(destroyTemplate.toJSON().Resources[metricsLogGroupId(destroyTemplate)]).toMatchObject({
      DeletionPolicy: 'Delete',
      UpdateReplacePolicy: 'Delete',
    });
    expect(stack.services.metricsLogGroup.node.path).toContain('PlatformMetricsLogs');
  });

  test('only manifest-processor and cost-monitor may write to it: CreateLogStream + PutLogEvents on that group', () => {
    const id = metricsLogGroupId(template);
    const grantOf = (role: string) =>
      statementsOfRole(template, role).filter((s) => s.Sid === 'PublishPlatformMetrics');
    for (const role of ['ServicesManifestProcessorRole', 'ServicesCostMonitorRole']) {
      expect(grantOf(role)).toEqual([
        {
          Sid: 'PublishPlatformMetrics',
          Effect: 'Allow',
          Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          Resource: { 'Fn::GetAtt': [id, 'Arn'] },
        },
      ]);
    }
    for (const role of ['ServicesHealthMonitorRole', 'ServicesInferenceProxyRole']) {
      expect(grantOf(role)).toEqual([]);
    }
    // No other statement of the stack names the group.
    const naming = iamStatements(template).filter((s) => JSON.stringify(s.Resource ?? '').includes(id));
    expect(naming).toHaveLength(2);
  });

  test('the publishers get METRICS_LOG_GROUP, PROJECT_NAME and a 60 s interval; the others nothing', () => {
    const objects = appliedManifests(template);
    const envOf = (service: string) => {
      const deployment = objects.find(
        (o) => o.kind === 'Deployment' && (o.metadata as { name: string }).name === service,
      ) as { spec: { template: { spec: { containers: { env: { name: string; value?: string }[] }[] } } } };
      return Object.fromEntries(
        (deployment.spec.template.spec.containers[0]?.env ?? []).map((e) => [e.name, e.value]),
      );
    };
    for (const service of ['manifest-processor', 'cost-monitor']) {
      expect(envOf(service)).toMatchObject({
        // The log group's name is a token in the template: its Ref.
        METRICS_LOG_GROUP: '<token>',
        PROJECT_NAME: 'gco',
        METRICS_INTERVAL_MS: '60000',
        REGION: 'us-east-1',
      });
    }
    for (const service of ['health-monitor', 'inference-proxy']) {
      expect(envOf(service)).not.toHaveProperty('METRICS_LOG_GROUP');
    }
    const manifestText = JSON.stringify(
      resources(template, 'Custom::AWSCDK-EKS-KubernetesResource').map(([, r]) => r.Properties.Manifest),
    );
    expect(manifestText).toContain(`{"Ref":"${metricsLogGroupId(template)}"}`);
  });

  test('each daily renewal names its certificate (alb, services, inference) and the project for the expiry metric', () => {
    const inputs = resources(template, 'AWS::Events::Rule')
      .flatMap(([, rule]) => (rule.Properties.Targets as { Input?: unknown }[] | undefined) ?? [])
      .map((target) => JSON.parse(joined(target.Input)) as Json)
      .filter((input) => input.Kind === 'CertificateRenewal');
    expect(inputs.map((i) => [i.Certificate, i.Project, i.DnsNames]).sort()).toEqual(
      [
        ['alb', 'gco', [expect.any(String)]],
        ['services', 'gco', expect.arrayContaining(['cost-monitor.gco-system.svc'])],
        ['inference', 'gco', ['*.gco-inference.svc.cluster.local']],
      ].sort(),
    );
  });

  test('cdk-nag: no unsuppressed error', () => {
    expect(nagErrors(stack)).toEqual([]);
  });
});

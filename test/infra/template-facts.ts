// What a configuration changes in the global and regional templates (region, project name, partition,
// account, optional features), gathered per stack into one small object. test/infra/app.test.ts states
// each configuration's difference from the default as such an object instead of a whole-template
// snapshot; the rules behind each value are asserted in the stack's own test file.
import type { Template } from 'aws-cdk-lib/assertions';
import { apiResourcePaths } from '../support/stack-templates.js';

type Json = Record<string, unknown>;
interface Resource {
  readonly Type: string;
  readonly Properties: Json;
}

/**
 * An intrinsic as the text CloudFormation would make of it, references kept as `${Name}`: shows
 * whether an ARN or name holds a literal account or region or a pseudo parameter.
 */
function text(value: unknown): string {
  if (typeof value === 'string') return value;
  const v = value as Json;
  if ('Ref' in v) return `\${${v.Ref as string}}`;
  if ('Fn::GetAtt' in v) return `\${${(v['Fn::GetAtt'] as string[]).join('.')}}`;
  if ('Fn::Sub' in v) return v['Fn::Sub'] as string;
  if ('Fn::Join' in v) {
    const [separator, parts] = v['Fn::Join'] as [string, unknown[]];
    return parts.map(text).join(separator);
  }
  // { Fn::Select: [i, { Fn::GetAZs: '' }] }: the AZ CloudFormation picks (no account in the app).
  if ('Fn::Select' in v) return `GetAZs[${(v['Fn::Select'] as [number])[0]}]`;
  return JSON.stringify(value);
}

const resourcesOf = (t: Template, type: string): [string, Resource][] =>
  Object.entries(t.findResources(type) as Record<string, Resource>);

const propertiesOf = (t: Template, type: string): Json[] => resourcesOf(t, type).map(([, r]) => r.Properties);

function onlyProperties(t: Template, type: string): Json {
  const all = propertiesOf(t, type);
  if (all.length !== 1) throw new Error(`expected one ${type}, found ${all.length}`);
  return all[0]!;
}

/** The one resource of a type, or null when the configuration leaves it out. */
function optionalProperties(t: Template, type: string): Json | null {
  return propertiesOf(t, type)[0] ?? null;
}

/** The S3 bucket the functions' code comes from: account and region, literal or pseudo parameters. */
const assetsBucket = (t: Template): string =>
  text((propertiesOf(t, 'AWS::Lambda::Function')[0]!.Code as Json).S3Bucket);

const policySids = (api: Json): string[] =>
  ((api.Policy as { Statement: { Sid: string }[] }).Statement ?? []).map((s) => s.Sid);

const markdownHeadings = (dashboard: Json): string[] =>
  [...text(dashboard.DashboardBody).matchAll(/"markdown":"## ([^"]*)"/g)].map((m) => m[1]!);

/** `{"region": ..., "parameters": {"Name": ...}}` of an AwsCustomResource that puts an SSM parameter. */
function ssmPut(resource: Resource): string {
  const call = JSON.parse(text(resource.Properties.Create)) as {
    region: string;
    parameters: { Name: string };
  };
  return `${call.region}:${call.parameters.Name}`;
}

/** Paths of the API's resources that have a method, sorted. */
function routedPaths(t: Template): string[] {
  const paths = apiResourcePaths(t);
  const routed = propertiesOf(t, 'AWS::ApiGateway::Method').map((m) =>
    paths.get((m.ResourceId as { Ref: string }).Ref),
  );
  return [...new Set(routed)].map(String).sort();
}

/** What a configuration may change in `<project>-global`. */
export function globalFacts(t: Template) {
  const functions = propertiesOf(t, 'AWS::Lambda::Function');
  const envOf = (f: Json): Json => (f.Environment as { Variables?: Json } | undefined)?.Variables ?? {};
  const aggregator = functions.find((f) => envOf(f).POWERTOOLS_SERVICE_NAME === 'aggregator')!;
  const aggregatorInvoke = propertiesOf(t, 'AWS::IAM::Policy')
    .flatMap((p) => (p.PolicyDocument as { Statement: Json[] }).Statement)
    .find((s) => s.Sid === 'InvokeRegionalAggregateRoutes')!;
  const tables = propertiesOf(t, 'AWS::DynamoDB::GlobalTable');
  const api = onlyProperties(t, 'AWS::ApiGateway::RestApi');
  return {
    description: t.toJSON().Description as string,
    assetsBucket: assetsBucket(t),
    api: {
      endpointType: (api.EndpointConfiguration as { Types: string[] }).Types.join(),
      policy: policySids(api),
      paths: routedPaths(t),
    },
    functions: functions
      .map((f) => envOf(f).POWERTOOLS_SERVICE_NAME)
      .filter((name): name is string => typeof name === 'string')
      .sort(),
    tables: tables.map((p) => p.TableName as string).sort(),
    tableRegions: [
      ...new Set(tables.flatMap((p) => (p.Replicas as { Region: string }[]).map((r) => r.Region))),
    ],
    secretReplicas: Object.fromEntries(
      propertiesOf(t, 'AWS::SecretsManager::Secret').map((s) => [
        s.Name as string,
        ((s.ReplicaRegions ?? []) as { Region: string }[]).map((r) => r.Region),
      ]),
    ),
    accelerator: (optionalProperties(t, 'AWS::GlobalAccelerator::Accelerator')?.Name as string) ?? null,
    listenerArnWriters: resourcesOf(t, 'Custom::AWS').map(([, r]) => ssmPut(r)),
    aggregatorRegions: (envOf(aggregator).REGIONS as string).split(','),
    aggregatorInvokes: [
      ...new Set(
        (aggregatorInvoke.Resource as unknown[]).map(
          (arn) => /:execute-api:([a-z0-9-]+):/.exec(text(arn))?.[1],
        ),
      ),
    ],
    studioDomain: resourcesOf(t, 'AWS::SageMaker::Domain').length > 0,
    alarms: resourcesOf(t, 'AWS::CloudWatch::Alarm').length,
    dashboardSections: markdownHeadings(onlyProperties(t, 'AWS::CloudWatch::Dashboard')),
  };
}

/** What a configuration may change in `<project>-<region>`. */
export function regionalFacts(t: Template) {
  const privateSubnets = resourcesOf(t, 'AWS::EC2::Subnet').filter(([id]) => id.includes('private'));
  const albGroup = resourcesOf(t, 'AWS::EC2::SecurityGroup').find(([id]) =>
    id.startsWith('AlbSecurityGroup'),
  )!;
  const ingress = (albGroup[1].Properties.SecurityGroupIngress ?? []) as { CidrIp?: unknown }[];
  const bucketPolicies = propertiesOf(t, 'AWS::S3::BucketPolicy').map((p) => JSON.stringify(p));
  const manifests = propertiesOf(t, 'Custom::AWSCDK-EKS-KubernetesResource').map((m) => text(m.Manifest));
  const api = onlyProperties(t, 'AWS::ApiGateway::RestApi');
  const endpointGroup = optionalProperties(t, 'AWS::GlobalAccelerator::EndpointGroup');
  return {
    description: t.toJSON().Description as string,
    assetsBucket: assetsBucket(t),
    availabilityZones: privateSubnets.map(([, s]) => text(s.Properties.AvailabilityZone)),
    natGateways: resourcesOf(t, 'AWS::EC2::NatGateway').length,
    interfaceEndpointRegions: [
      ...new Set(
        propertiesOf(t, 'AWS::EC2::VPCEndpoint')
          .filter((e) => e.VpcEndpointType === 'Interface')
          .map((e) => /^com\.amazonaws\.([a-z0-9-]+)\./.exec(text(e.ServiceName))?.[1]),
      ),
    ],
    cluster: onlyProperties(t, 'AWS::EKS::Cluster').Name as string,
    // DEPLOYMENT_REGIONS of the services (the same in every manifest that sets it).
    deploymentRegions: [
      ...new Set(
        manifests.flatMap((m) => [...m.matchAll(/"DEPLOYMENT_REGIONS","value":"([^"]*)"/g)].map((r) => r[1])),
      ),
    ].flatMap((regions) => regions!.split(',')),
    api: { name: api.Name as string, policy: policySids(api) },
    apiUrlParameter: ssmPut(
      resourcesOf(t, 'Custom::AWS').find(([id]) => id.startsWith('RegionalApiUrl'))![1],
    ),
    acceleratorEndpointGroup: (endpointGroup?.EndpointGroupRegion as string) ?? null,
    albOpenToInternet: ingress.some((rule) => rule.CidrIp === '0.0.0.0/0'),
    // The Elastic Load Balancing account of the region, allowed to write the ALB access logs.
    albLogWriter: bucketPolicies.map((p) => /:iam::(\d{12}):root/.exec(p)?.[1]).find(Boolean) ?? null,
    costReportRegions: propertiesOf(t, 'AWS::DynamoDB::GlobalTable').flatMap((p) =>
      (p.Replicas as { Region: string }[]).map((r) => r.Region),
    ),
    alarmTopic: onlyProperties(t, 'AWS::SNS::Topic').TopicName as string,
    dashboard: onlyProperties(t, 'AWS::CloudWatch::Dashboard').DashboardName as string,
  };
}

export type GlobalFacts = ReturnType<typeof globalFacts>;
export type RegionalFacts = ReturnType<typeof regionalFacts>;

/**
 * The region's REST API (seed 001, "Regional API"): REGIONAL endpoint, the shared stage settings, the
 * control-plane and inference routes of `regionalApiDefinition()` backed by the in-VPC proxies, and the
 * resource policy of seed 001:
 * 1. always: the cross-region aggregator role may invoke the five aggregate routes;
 * 2. when `regionalApiOpenToAccount` (opted in, or no accelerator in the partition): every other
 *    principal of the account may invoke every route — the aggregator role is excluded by condition, so
 *    it keeps exactly statement 1.
 * The stage URL is published for the aggregator as `/<project>/regional-api/<region>` in the GLOBAL
 * region (docs/aggregator.md, "Discovery contract").
 */
import { Aws, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { AccountPrincipal, ArnPrincipal, PolicyDocument, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { AwsCustomResource, AwsCustomResourcePolicy, PhysicalResourceId } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { AGGREGATOR_REGIONAL_ROUTES, regionalApiDefinition } from '../api-routes.js';
import type { PlatformConfig } from '../config.js';
import { aggregatorRoleName, regionalApiParameterName } from '../names.js';
import { PlatformRestApi } from './platform-rest-api.js';

export interface RegionalApiProps {
  readonly config: PlatformConfig;
  readonly controlPlaneProxy: IFunction;
  readonly inferenceProxy: IFunction;
}

/** The regional resource policy of seed 001 for `account` (a token in a stack). */
export function regionalApiPolicy(config: PlatformConfig, account: string): PolicyDocument {
  // By name: the role lives in the global stack, another region (same account).
  const aggregatorRoleArn = `arn:${Aws.PARTITION}:iam::${account}:role/${aggregatorRoleName(config)}`;
  const statements = [
    new PolicyStatement({
      sid: 'AggregatorRoutes',
      principals: [new ArnPrincipal(aggregatorRoleArn)],
      actions: ['execute-api:Invoke'],
      resources: AGGREGATOR_REGIONAL_ROUTES.map(
        (route) => `execute-api:/${config.stage}/${route.method}${route.path}`,
      ),
    }),
  ];
  if (config.regionalApiOpenToAccount) {
    statements.push(
      new PolicyStatement({
        sid: 'AccountPrincipals',
        principals: [new AccountPrincipal(account)],
        actions: ['execute-api:Invoke'],
        resources: ['execute-api:/*'],
        conditions: {
          StringEquals: { 'aws:PrincipalAccount': account },
          // The aggregator keeps exactly its five routes.
          ArnNotEquals: { 'aws:PrincipalArn': aggregatorRoleArn },
        },
      }),
    );
  }
  return new PolicyDocument({ statements });
}

export class RegionalApi extends Construct {
  readonly api: PlatformRestApi;
  /** Stage URL, `https://<id>.execute-api.<region>.<suffix>/<stage>/`. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: RegionalApiProps) {
    super(scope, id);
    const { config } = props;
    const stack = Stack.of(this);
    this.api = new PlatformRestApi(this, 'Api', {
      definition: regionalApiDefinition(config),
      functions: {
        'control-plane-proxy': props.controlPlaneProxy,
        'inference-stream-proxy': props.inferenceProxy,
      },
      policy: regionalApiPolicy(config, stack.account),
      restApiName: `${config.projectName}-regional-api-${stack.region}`,
    });
    this.url = this.api.api.url;

    const parameterName = regionalApiParameterName(config, stack.region);
    const parameterArn = stack.formatArn({
      service: 'ssm',
      region: config.globalRegion,
      resource: 'parameter',
      // formatArn adds the `/` between `parameter` and the name.
      resourceName: parameterName.replace(/^\//, ''),
    });
    const put = {
      service: 'SSM',
      action: 'putParameter',
      region: config.globalRegion,
      parameters: {
        Name: parameterName,
        Value: this.url,
        Type: 'String',
        Overwrite: true,
        Description: `${config.projectName} regional API of ${stack.region} (aggregator discovery)`,
      },
      physicalResourceId: PhysicalResourceId.of(parameterName),
    };
    const publication = new AwsCustomResource(this, 'UrlParameter', {
      onCreate: put,
      onUpdate: put,
      onDelete: {
        service: 'SSM',
        action: 'deleteParameter',
        region: config.globalRegion,
        parameters: { Name: parameterName },
        // Already gone (deleted by hand): nothing left to clean up.
        ignoreErrorCodesMatching: 'ParameterNotFound',
      },
      policy: AwsCustomResourcePolicy.fromStatements([
        new PolicyStatement({
          actions: ['ssm:PutParameter', 'ssm:DeleteParameter'],
          resources: [parameterArn],
        }),
      ]),
      installLatestAwsSdk: false,
      logGroup: new LogGroup(this, 'UrlParameterLogs', {
        retention: RetentionDays.ONE_MONTH,
        removalPolicy: RemovalPolicy.DESTROY,
      }),
    });
    // Publish only once the stage is deployed, so the aggregator never discovers a URL that 404s.
    publication.node.addDependency(this.api.api.deploymentStage);
  }
}

/**
 * The region's REST API (docs/regional-stack.md, "Regional API resource policy"): REGIONAL endpoint, the
 * shared stage settings, the control-plane and inference routes of `regionalApiDefinition()` backed by the
 * in-VPC proxies, and this resource policy:
 * 1. always: the cross-region aggregator role may invoke the five aggregate routes;
 * 2. when `openToAccount` (opted in, or no accelerator in the partition): every other
 *    principal of the account may invoke every route — the aggregator role is excluded by condition, so
 *    it keeps exactly statement 1.
 * The stage URL is published for the aggregator as `/<project>/regional-api/<region>` in the GLOBAL
 * region (docs/aggregator.md, "Discovery contract").
 */
import { Aws, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { AccountPrincipal, ArnPrincipal, PolicyDocument, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { AGGREGATOR_REGIONAL_ROUTES } from '../../contracts/api-routes.js';
import type { ApiDefinition } from '../../contracts/api-routes.js';
import { PlatformRestApi } from './platform-rest-api.js';
import { RemoteStringParameter } from './remote-string-parameter.js';

export interface RegionalApiProps {
  /** The regional API definition (contracts/api-routes.ts): routes, stage and throttling. */
  readonly definition: ApiDefinition;
  /** Project name: the URL parameter's description. */
  readonly projectName: string;
  /** The REST API's name (lib/names.ts regionalApiName: the alarms find its metrics by it). */
  readonly restApiName: string;
  /** The function behind the control-plane routes (`/api/v1/{proxy+}`). */
  readonly controlPlaneProxy: IFunction;
  /** The function behind the inference routes (`/inference/{proxy+}`). */
  readonly inferenceProxy: IFunction;
  /** Name of the cross-region aggregator's role (global stack), granted the aggregate routes. */
  readonly aggregatorRoleName: string;
  /** Statement 2 of the policy: every other principal of the account may invoke every route. */
  readonly openToAccount: boolean;
  /** Region of the global stack, where the stage URL is published for the aggregator. */
  readonly globalRegion: string;
  /** SSM parameter the stage URL is published as (`/<project>/regional-api/<region>`). */
  readonly urlParameterName: string;
}

/** The regional resource policy for `account` (a token in a stack). */
function regionalApiPolicy(props: RegionalApiProps, account: string): PolicyDocument {
  // By name: the role lives in the global stack, another region (same account).
  const aggregatorRoleArn = `arn:${Aws.PARTITION}:iam::${account}:role/${props.aggregatorRoleName}`;
  const statements = [
    new PolicyStatement({
      sid: 'AggregatorRoutes',
      principals: [new ArnPrincipal(aggregatorRoleArn)],
      actions: ['execute-api:Invoke'],
      resources: AGGREGATOR_REGIONAL_ROUTES.map(
        (route) => `execute-api:/${props.definition.stage}/${route.method}${route.path}`,
      ),
    }),
  ];
  if (props.openToAccount) {
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
  /** The REST API and its stage. */
  readonly api: PlatformRestApi;
  /** Stage URL, `https://<id>.execute-api.<region>.<suffix>/<stage>/`. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: RegionalApiProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.api = new PlatformRestApi(this, 'Api', {
      definition: props.definition,
      functions: {
        'control-plane-proxy': props.controlPlaneProxy,
        'inference-stream-proxy': props.inferenceProxy,
      },
      policy: regionalApiPolicy(props, stack.account),
      restApiName: props.restApiName,
    });
    this.url = this.api.api.url;

    const publication = new RemoteStringParameter(this, 'UrlParameter', {
      region: props.globalRegion,
      parameterName: props.urlParameterName,
      value: this.url,
      description: `${props.projectName} regional API of ${stack.region} (aggregator discovery)`,
      logGroup: new LogGroup(this, 'UrlParameterLogs', {
        retention: RetentionDays.ONE_MONTH,
        removalPolicy: RemovalPolicy.DESTROY,
      }),
    });
    // Publish only once the stage is deployed, so the aggregator never discovers a URL that 404s.
    publication.node.addDependency(this.api.api.deploymentStage);
  }
}

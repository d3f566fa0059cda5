/**
 * A REST API built from its definition in contracts/api-routes.ts (the same data the local emulator serves),
 * with the stage settings every API of the platform shares (docs/global-stack.md): throttling from
 * config, execution logging INFO, data trace off, detailed metrics on, X-Ray on, JSON access logs that
 * carry no secrets.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  AuthorizationType,
  EndpointType,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  MockIntegration,
  ResponseTransferMode,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import type { IAuthorizer, IResource, Method } from 'aws-cdk-lib/aws-apigateway';
import type { PolicyDocument } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import type { ApiDefinition, RouteAuth, RouteDefinition, RouteHandler } from '../../contracts/api-routes.js';
import { suppressRestApiCloudWatchRole } from '../nag-suppressions.js';

export interface PlatformRestApiProps {
  /** The API's routes, stage and throttling (contracts/api-routes.ts). */
  readonly definition: ApiDefinition;
  /** API name in API Gateway. */
  readonly restApiName: string;
  /** The function behind every Lambda route of the definition (missing one = synth error). */
  readonly functions: Partial<Record<RouteHandler, IFunction>>;
  /**
   * Authorizers for `cognito` and `analytics-api-key` routes (missing one = synth error).
   * @default none: the definition may only have `iam` and `none` routes
   */
  readonly authorizers?: Partial<Record<Exclude<RouteAuth, 'iam' | 'none'>, IAuthorizer>>;
  /** Resource policy: who may invoke which route. */
  readonly policy: PolicyDocument;
  /**
   * What `cdk destroy` does with the access log group (`removal_policy`, lib/retention.ts).
   * @default RemovalPolicy.RETAIN
   */
  readonly accessLogsRemovalPolicy?: RemovalPolicy;
}

/**
 * Access log line: request identity and outcome only. No headers, query strings or bodies, so neither a
 * SigV4 signature nor an analytics API key can reach the log.
 */
export const ACCESS_LOG_FIELDS: Readonly<Record<string, string>> = {
  requestId: '$context.requestId',
  extendedRequestId: '$context.extendedRequestId',
  requestTime: '$context.requestTime',
  sourceIp: '$context.identity.sourceIp',
  userAgent: '$context.identity.userAgent',
  principal: '$context.identity.userArn',
  accountId: '$context.identity.accountId',
  httpMethod: '$context.httpMethod',
  resourcePath: '$context.resourcePath',
  operationName: '$context.operationName',
  protocol: '$context.protocol',
  status: '$context.status',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationStatus: '$context.integration.status',
  integrationLatency: '$context.integration.latency',
  integrationError: '$context.integration.error',
  authorizerError: '$context.authorizer.error',
  wafResponseCode: '$context.wafResponseCode',
  errorType: '$context.error.responseType',
  errorMessage: '$context.error.message',
};

export class PlatformRestApi extends Construct {
  /** The REST API and its stage (`api.deploymentStage`). */
  readonly api: RestApi;
  /** The stage's access log (ACCESS_LOG_FIELDS, one JSON line per request). */
  readonly accessLogs: LogGroup;

  constructor(scope: Construct, id: string, props: PlatformRestApiProps) {
    super(scope, id);
    const { definition } = props;
    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: RetentionDays.ONE_YEAR,
      removalPolicy: props.accessLogsRemovalPolicy ?? RemovalPolicy.RETAIN,
    });
    this.api = new RestApi(this, 'Api', {
      restApiName: props.restApiName,
      description: `${definition.title} ${definition.version}`,
      endpointConfiguration: {
        types: [definition.endpointType === 'EDGE' ? EndpointType.EDGE : EndpointType.REGIONAL],
      },
      policy: props.policy,
      cloudWatchRole: true,
      // Several stacks may share a region; the account-level setting must outlive any one of them.
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      deployOptions: {
        stageName: definition.stage,
        throttlingRateLimit: definition.throttling.rateLimit,
        throttlingBurstLimit: definition.throttling.burstLimit,
        loggingLevel: MethodLoggingLevel.INFO,
        dataTraceEnabled: false,
        metricsEnabled: true,
        tracingEnabled: true,
        accessLogDestination: new LogGroupLogDestination(this.accessLogs),
        accessLogFormat: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
    });

    for (const route of definition.routes) {
      const resource = this.resourceFor(route.path);
      const method = resource.addMethod(route.method, this.integrationFor(route, props), {
        operationName: route.operationId,
        ...this.authorizationFor(route.auth, props),
        ...(route.integration.type === 'mock' ? { methodResponses: [{ statusCode: '200' }] } : {}),
        ...(route.path.includes('{proxy+}')
          ? { requestParameters: { 'method.request.path.proxy': true } }
          : {}),
      });
      suppressMethodFindings(method, route);
    }
    NagSuppressions.addResourceSuppressions(this.api, [
      {
        id: 'AwsSolutions-APIG2',
        reason:
          'The handlers validate every request themselves (proxies: docs/edge-lambdas.md "Request rules"; services: ' +
          "422 HTTPValidationError); a gateway model would duplicate the services' schemas",
      },
    ]);
    suppressRestApiCloudWatchRole(this.api);
  }

  private resourceFor(path: string): IResource {
    let resource: IResource = this.api.root;
    for (const part of path.split('/').filter(Boolean)) {
      resource = resource.getResource(part) ?? resource.addResource(part);
    }
    return resource;
  }

  private integrationFor(route: RouteDefinition, props: PlatformRestApiProps) {
    const integration = route.integration;
    if (integration.type === 'mock') {
      return new MockIntegration({
        requestTemplates: { 'application/json': `{"statusCode": ${integration.statusCode}}` },
        integrationResponses: [
          { statusCode: String(integration.statusCode), responseTemplates: { 'application/json': '' } },
        ],
      });
    }
    const fn = props.functions[integration.handler];
    if (!fn) throw new Error(`${props.definition.id} API: no function for handler ${integration.handler}`);
    return new LambdaIntegration(fn, {
      proxy: true,
      timeout: Duration.seconds(integration.timeoutSeconds),
      ...(integration.streaming ? { responseTransferMode: ResponseTransferMode.STREAM } : {}),
      // The console's test button is not a caller; no permission for it.
      allowTestInvoke: false,
    });
  }

  private authorizationFor(
    auth: RouteAuth,
    props: PlatformRestApiProps,
  ): { authorizationType: AuthorizationType; authorizer?: IAuthorizer } {
    if (auth === 'iam') return { authorizationType: AuthorizationType.IAM };
    if (auth === 'none') return { authorizationType: AuthorizationType.NONE };
    const authorizer = props.authorizers?.[auth];
    if (!authorizer) throw new Error(`${props.definition.id} API: no authorizer for ${auth} routes`);
    return {
      authorizationType: auth === 'cognito' ? AuthorizationType.COGNITO : AuthorizationType.CUSTOM,
      authorizer,
    };
  }
}

/** cdk-nag findings that a route's definition answers, each with its reason. */
function suppressMethodFindings(method: Method, route: RouteDefinition): void {
  const suppressions: { id: string; reason: string }[] = [];
  if (route.auth !== 'cognito') {
    suppressions.push({
      id: 'AwsSolutions-COG4',
      reason:
        route.auth === 'iam'
          ? 'Authorized by IAM (SigV4) and the resource policy (seed 001); Cognito is only for /studio/login'
          : route.auth === 'analytics-api-key'
            ? 'Authorized by the analytics API-key Lambda authorizer (seed 002)'
            : 'Unauthenticated by the seed: the identity provider redirect lands here (mock integration, empty 200)',
    });
  }
  if (route.auth === 'none') {
    suppressions.push({
      id: 'AwsSolutions-APIG4',
      reason:
        'Unauthenticated by the seed: the identity provider redirect lands here (mock integration, empty 200)',
    });
  }
  if (suppressions.length > 0) NagSuppressions.addResourceSuppressions(method, suppressions);
}

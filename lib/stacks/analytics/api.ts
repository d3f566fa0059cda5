// The analytics REST API: the API-key REQUEST authorizer of the events route, the API with its resource
// policy, and gateway responses whose messages say what to do. Created directly in the stack, so the
// logical IDs stay `ApiKeyAuthorizer…`, `Api…`.
import { AccountPrincipal, AnyPrincipal, PolicyDocument, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Aws, Duration } from 'aws-cdk-lib';
import { IdentitySource, RequestAuthorizer, ResponseType } from 'aws-cdk-lib/aws-apigateway';
import type { RemovalPolicy } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { ApiDefinition } from '../../../contracts/api-routes.js';
import type { PlatformConfig } from '../../config.js';
import { PlatformRestApi } from '../../constructs/platform-rest-api.js';
import { analyticsApiName } from '../../names.js';
import type { AnalyticsFunctions } from './functions.js';

/** Gateway responses with messages that say what to do; every 4XX/5XX body is JSON `{"message":…}`. */
export const GATEWAY_RESPONSES = {
  [ResponseType.DEFAULT_4XX.responseType]: '{"message":$context.error.messageString}',
  [ResponseType.DEFAULT_5XX.responseType]: '{"message":$context.error.messageString}',
  [ResponseType.UNAUTHORIZED.responseType]:
    '{"message":"Unauthorized: send an enabled API key of this application in the Authorization header"}',
  [ResponseType.ACCESS_DENIED.responseType]:
    '{"message":"Forbidden: the caller may not perform this operation on this application"}',
} as const;

export interface AnalyticsApiProps {
  readonly config: PlatformConfig;
  readonly definition: ApiDefinition;
  readonly functions: AnalyticsFunctions;
  /** The access logs follow removal_policy like the other data. */
  readonly removalPolicy: RemovalPolicy;
}

export function addAnalyticsApi(
  stack: Construct,
  props: AnalyticsApiProps,
): { readonly authorizer: RequestAuthorizer; readonly restApi: PlatformRestApi } {
  const { config, definition, functions: fns } = props;
  const authorizer = new RequestAuthorizer(stack, 'ApiKeyAuthorizer', {
    authorizerName: `${config.projectName}-analytics-api-key`,
    handler: fns.authorizer,
    identitySources: [IdentitySource.header('Authorization')],
    resultsCacheTtl: Duration.seconds(config.analyticsApi.authorizerCacheTtlSeconds),
  });
  const restApi = new PlatformRestApi(stack, 'Api', {
    definition,
    restApiName: analyticsApiName(config),
    functions: {
      'analytics-admin': fns.admin,
      'analytics-events': fns.events,
      'analytics-warehouse-setup': fns.warehouseSetup,
    },
    authorizers: { 'analytics-api-key': authorizer },
    accessLogsRemovalPolicy: props.removalPolicy,
    policy: analyticsApiPolicy(definition.stage),
  });
  for (const [type, template] of Object.entries(GATEWAY_RESPONSES)) {
    restApi.api.addGatewayResponse(`Response${pascal(type)}`, {
      type: ResponseType.of(type),
      templates: { 'application/json': template },
    });
  }
  return { authorizer, restApi };
}

function analyticsApiPolicy(stage: string): PolicyDocument {
  return new PolicyDocument({
    statements: [
      // The account delegates: an account principal may call any route its IAM policies allow
      // (execute-api:Invoke), as the administrative routes are SigV4 authorized.
      new PolicyStatement({
        sid: 'AccountPrincipals',
        principals: [new AccountPrincipal(Aws.ACCOUNT_ID)],
        actions: ['execute-api:Invoke'],
        resources: ['execute-api:/*'],
      }),
      // Games are not IAM principals: anyone may reach the events route, where the API-key
      // authorizer decides.
      new PolicyStatement({
        sid: 'GamesSendEvents',
        principals: [new AnyPrincipal()],
        actions: ['execute-api:Invoke'],
        resources: [`execute-api:/${stage}/POST/applications/*/events`],
      }),
    ],
  });
}

function pascal(type: string): string {
  return type
    .toLowerCase()
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
}

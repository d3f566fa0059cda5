/**
 * The REST APIs of the platform as data, declared ONCE (docs/global-stack.md and docs/regional-stack.md
 * for the global and regional APIs, docs/analytics-api.md for the analytics API). The stacks turn each
 * definition into API Gateway resources and methods; the local API Gateway emulator (`npm start`) serves
 * the same definitions; tests assert against them. A route that is not listed here does not exist anywhere.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';

type ApiId = 'global' | 'regional' | 'analytics';

/** The deployment settings the route tables depend on (a structural subset of lib/config.ts's PlatformConfig). */
export interface ApiSettings {
  readonly projectName: string;
  readonly stage: string;
  readonly hasAccelerator: boolean;
  readonly apiGateway: {
    readonly throttlingRateLimit: number;
    readonly throttlingBurstLimit: number;
    readonly globalEndpointType: ApiDefinition['endpointType'];
  };
  readonly analyticsEnvironment: { readonly enabled: boolean };
  readonly analyticsApi: { readonly stage: string };
}

/** The Lambda function behind a route: the stacks map each to a NodejsFunction, the emulator to its handler. */
export type RouteHandler =
  | 'control-plane-proxy'
  | 'inference-stream-proxy'
  | 'aggregator'
  | 'studio-login'
  | 'analytics-admin'
  | 'analytics-events'
  | 'analytics-warehouse-setup';

/**
 * How a caller is authenticated:
 * - `iam`: SigV4 for service execute-api, then the API's resource policy;
 * - `cognito`: an ID token of the analytics studio user pool in `Authorization`;
 * - `analytics-api-key`: the analytics REQUEST Lambda authorizer on the `Authorization` header;
 * - `none`: unauthenticated.
 */
export type RouteAuth = 'iam' | 'cognito' | 'analytics-api-key' | 'none';

export type RouteIntegration =
  | {
      readonly type: 'lambda';
      readonly handler: RouteHandler;
      /** API Gateway integration timeout. */
      readonly timeoutSeconds: number;
      /** `responseTransferMode: STREAM` (Lambda response streaming) instead of a buffered proxy. */
      readonly streaming: boolean;
    }
  | {
      /** Mock integration answering `statusCode` with an empty body. */
      readonly type: 'mock';
      readonly statusCode: 200;
    };

export interface RouteDefinition {
  /** Resource path, API Gateway syntax: `/api/v1/{proxy+}`, `/applications/{APPLICATION_ID}`. */
  readonly path: string;
  readonly method: HttpMethod;
  readonly operationId: string;
  readonly auth: RouteAuth;
  readonly integration: RouteIntegration;
}

/** Stage throttling (`api_gateway.throttling_*`): a token bucket of `burstLimit` filled at `rateLimit`/s. */
export interface StageThrottling {
  readonly rateLimit: number;
  readonly burstLimit: number;
}

export interface ApiDefinition {
  readonly id: ApiId;
  readonly title: string;
  readonly version: string;
  readonly endpointType: 'EDGE' | 'REGIONAL';
  readonly stage: string;
  readonly throttling: StageThrottling;
  readonly routes: readonly RouteDefinition[];
}

/** Integration timeout of buffered and aggregate routes (the REST API default maximum). */
const BUFFERED_TIMEOUT_SECONDS = 29;
/** Integration timeout and streaming window of the inference routes. */
const STREAMING_TIMEOUT_SECONDS = 900;

/** Routes the regional resource policy always grants the cross-region aggregator role (docs/aggregator.md). */
export const AGGREGATOR_REGIONAL_ROUTES: readonly { readonly method: HttpMethod; readonly path: string }[] = [
  { method: 'DELETE', path: '/api/v1/jobs' },
  { method: 'GET', path: '/api/v1/health' },
  { method: 'GET', path: '/api/v1/jobs' },
  { method: 'GET', path: '/api/v1/policy' },
  { method: 'GET', path: '/api/v1/status' },
];

const CONTROL_PLANE_PATH = '/api/v1/{proxy+}';
const INFERENCE_PATH = '/inference/{proxy+}';

const lambda = (handler: RouteHandler, streaming = false): RouteIntegration => ({
  type: 'lambda',
  handler,
  timeoutSeconds: streaming ? STREAMING_TIMEOUT_SECONDS : BUFFERED_TIMEOUT_SECONDS,
  streaming,
});

/** `getApiV1Proxy` style operation id: method + the path's literal segments + `Proxy`. */
const proxyOperationId = (method: HttpMethod, prefix: string): string =>
  method.toLowerCase() + prefix + 'Proxy';

function controlPlaneRoutes(methods: readonly HttpMethod[]): RouteDefinition[] {
  return methods.map((method) => ({
    path: CONTROL_PLANE_PATH,
    method,
    operationId: proxyOperationId(method, 'ApiV1'),
    auth: 'iam',
    integration: lambda('control-plane-proxy'),
  }));
}

function inferenceRoutes(): RouteDefinition[] {
  return (['GET', 'POST', 'HEAD'] as const).map((method) => ({
    path: INFERENCE_PATH,
    method,
    operationId: proxyOperationId(method, 'Inference'),
    auth: 'iam',
    integration: lambda('inference-stream-proxy', true),
  }));
}

/**
 * Global API (EDGE). Aggregate routes always; the accelerator-backed catch-alls only where the partition
 * has Global Accelerator; the studio routes only with the analytics environment.
 */
const stageThrottling = (config: ApiSettings): StageThrottling => ({
  rateLimit: config.apiGateway.throttlingRateLimit,
  burstLimit: config.apiGateway.throttlingBurstLimit,
});

export function globalApiDefinition(config: ApiSettings): ApiDefinition {
  const aggregate = (method: HttpMethod, name: string, operationId: string): RouteDefinition => ({
    path: `/api/v1/global/${name}`,
    method,
    operationId,
    auth: 'iam',
    integration: lambda('aggregator'),
  });
  const routes: RouteDefinition[] = [
    aggregate('GET', 'health', 'getApiV1GlobalHealth'),
    aggregate('GET', 'jobs', 'getApiV1GlobalJobs'),
    aggregate('DELETE', 'jobs', 'deleteApiV1GlobalJobs'),
    aggregate('GET', 'status', 'getApiV1GlobalStatus'),
  ];
  if (config.hasAccelerator) {
    routes.push(...controlPlaneRoutes(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']), ...inferenceRoutes());
  }
  if (config.analyticsEnvironment.enabled) {
    routes.push(
      {
        path: '/studio/callback',
        method: 'GET',
        operationId: 'getStudioCallback',
        auth: 'none',
        integration: { type: 'mock', statusCode: 200 },
      },
      {
        path: '/studio/login',
        method: 'GET',
        operationId: 'getStudioLogin',
        auth: 'cognito',
        integration: lambda('studio-login'),
      },
    );
  }
  return {
    id: 'global',
    title: `${config.projectName} global API`,
    version: '1.0.0',
    // config.ts decides: EDGE only in the commercial partition, unless global_endpoint_type is "regional".
    endpointType: config.apiGateway.globalEndpointType,
    stage: config.stage,
    throttling: stageThrottling(config),
    routes,
  };
}

/** Regional API (REGIONAL), one per deployment region: the catch-alls, plus HEAD/OPTIONS on control plane. */
export function regionalApiDefinition(config: ApiSettings): ApiDefinition {
  return {
    id: 'regional',
    title: `${config.projectName} regional API`,
    version: '1.0.0',
    endpointType: 'REGIONAL',
    stage: config.stage,
    throttling: stageThrottling(config),
    routes: [
      ...controlPlaneRoutes(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']),
      ...inferenceRoutes(),
    ],
  };
}

/** Path parameters of the analytics API (docs/analytics-api.md); both are UUIDs. */
export const APPLICATION_ID_PARAM = 'APPLICATION_ID';
export const API_KEY_ID_PARAM = 'API_KEY_ID';

/** Game-analytics ingestion API (docs/analytics-api.md): administrative routes are IAM, events use API keys. */
export function analyticsApiDefinition(config: ApiSettings): ApiDefinition {
  const app = `/applications/{${APPLICATION_ID_PARAM}}`;
  const key = `${app}/authorizations/{${API_KEY_ID_PARAM}}`;
  const admin = (method: HttpMethod, path: string, operationId: string): RouteDefinition => ({
    path,
    method,
    operationId,
    auth: 'iam',
    integration: lambda('analytics-admin'),
  });
  const setup = (path: string, operationId: string): RouteDefinition => ({
    path,
    method: 'POST',
    operationId,
    auth: 'iam',
    integration: lambda('analytics-warehouse-setup'),
  });
  return {
    id: 'analytics',
    title: `${config.projectName} game analytics API`,
    version: '1.0.0',
    endpointType: 'REGIONAL',
    stage: config.analyticsApi.stage,
    throttling: stageThrottling(config),
    routes: [
      admin('POST', '/applications', 'createApplication'),
      admin('GET', '/applications', 'listApplications'),
      admin('GET', app, 'getApplication'),
      admin('DELETE', app, 'deleteApplication'),
      {
        path: `${app}/events`,
        method: 'POST',
        operationId: 'putEvents',
        auth: 'analytics-api-key',
        integration: lambda('analytics-events'),
      },
      admin('POST', `${app}/authorizations`, 'createAuthorization'),
      admin('GET', `${app}/authorizations`, 'listAuthorizations'),
      admin('GET', key, 'getAuthorization'),
      admin('PUT', key, 'updateAuthorization'),
      admin('DELETE', key, 'deleteAuthorization'),
      setup('/redshift/setup', 'setupRedshift'),
      // The specification's example request uses this path; both reach the same function.
      setup('/applications/redshift/setup', 'setupRedshiftUnderApplications'),
    ],
  };
}

/** Lambda's largest function timeout, which is also the streaming window of the inference routes. */
const LAMBDA_MAX_TIMEOUT_SECONDS = 900;

/**
 * Timeout of the function behind `handler` in `api`, the one rule every stack follows: one second past
 * the longest integration timeout among the routes it serves, so API Gateway gives up (and answers the
 * caller itself) before Lambda stops the invocation; capped at Lambda's 900 s maximum.
 */
export function functionTimeoutSeconds(api: ApiDefinition, handler: RouteHandler): number {
  const timeouts = api.routes.flatMap((route) =>
    route.integration.type === 'lambda' && route.integration.handler === handler
      ? [route.integration.timeoutSeconds]
      : [],
  );
  if (timeouts.length === 0) throw new Error(`The ${api.id} API has no route served by ${handler}`);
  return Math.min(Math.max(...timeouts) + 1, LAMBDA_MAX_TIMEOUT_SECONDS);
}

/**
 * Cross-region aggregator behind the global API's /api/v1/global/* routes (docs/aggregator.md). Discovers every regional API, calls the matching regional route on all of them
 * in parallel with SigV4 from its own role, and merges the answers by region. A failed or slow region
 * is reported in place of its answer; it never fails or empties the whole answer.
 */
import { errorMessage } from '../../contracts/runtime/errors.js';
import type { SSMClient } from '@aws-sdk/client-ssm';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { answerInternalError, entryPoint } from '../shared/entry-point.js';
import { createLogger, type EdgeLogger } from '../shared/logger.js';
import { discoveryFor } from '../shared/regional-apis.js';
import {
  withExpectedRegions,
  type DiscoveryResult,
  type RegionalApiDiscovery,
} from '../../contracts/regional-apis.js';
import {
  roleCredentials,
  type AwsCredentialIdentity,
  type AwsCredentialIdentityProvider,
  type QueryParameters,
} from '../../contracts/runtime/sigv4.js';
import {
  DEFAULT_BUDGET_MS,
  readAggregatorConfig,
  type AggregatorSettings,
} from '../../contracts/env/aggregator.js';
import type { RegionResult } from '../../contracts/api/aggregator.js';
import { fanOut, type RegionCall } from './fan-out.js';
import { DEFAULT_JOB_SORT, mergeDelete, mergeHealth, mergeJobs, mergeStatus } from './merge.js';
import { aggregateOutcome } from './outcome.js';
import { targetRegionHeaderIn, targetRegionRefusal } from '../shared/target-region.js';

export const SERVICE_NAME = 'aggregator';
/** Kept back from Lambda's own remaining time so the merged answer is still returned before the kill. */
export const LAMBDA_MARGIN_MS = 1_000;
/** Lambda's synchronous response limit is 6 MB for the whole (JSON-escaped) result; stay clear of it. */
export const MAX_RESPONSE_BYTES = 5 * 1024 * 1024;

export type AggregatorHandler = (
  event: APIGatewayProxyEvent,
  context?: Pick<Context, 'getRemainingTimeInMillis'> & Partial<Context>,
) => Promise<APIGatewayProxyResult>;

export interface AggregatorDeps {
  discovery: RegionalApiDiscovery;
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  settings?: Partial<AggregatorSettings>;
  logger?: EdgeLogger;
  now?: () => Date;
}

interface RouteContext {
  query: QueryParameters;
  body: string | undefined;
}

interface Route {
  call: (ctx: RouteContext) => RegionCall;
  merge: (results: Record<string, RegionResult>, ctx: RouteContext, now: Date) => Record<string, unknown>;
}

const JSON_HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-store' };

function respond(statusCode: number, body: unknown, extraHeaders: Record<string, string> = {}) {
  return { statusCode, headers: { ...JSON_HEADERS, ...extraHeaders }, body: JSON.stringify(body) };
}

function message(statusCode: number, text: string, extraHeaders: Record<string, string> = {}) {
  return respond(statusCode, { message: text }, extraHeaders);
}

function single(query: QueryParameters, key: string): string | undefined {
  const value = query[key];
  return typeof value === 'string' ? value : value?.[0];
}

function intParam(query: QueryParameters, key: string): number | null {
  const value = single(query, key);
  if (value === undefined || !/^\d+$/.test(value)) return null;
  return Number(value);
}

function dryRunOf(body: string | undefined): boolean {
  if (!body) return false;
  const parsed = JSON.parse(body) as unknown;
  return typeof parsed === 'object' && parsed !== null && (parsed as { dry_run?: unknown }).dry_run === true;
}

const HEALTH_PATH = '/api/v1/global/health';

const ROUTES: Readonly<Record<string, Readonly<Partial<Record<string, Route>>>>> = {
  [HEALTH_PATH]: {
    GET: {
      call: () => ({ method: 'GET', path: '/api/v1/health' }),
      merge: (results, _ctx, now) => mergeHealth(results, now),
    },
  },
  '/api/v1/global/jobs': {
    GET: {
      // The caller's query (namespace, status, limit, offset, sort, label_selector) reaches every region.
      call: ({ query }) => ({ method: 'GET', path: '/api/v1/jobs', query }),
      merge: (results, { query }, now) =>
        mergeJobs(
          results,
          {
            sort: single(query, 'sort') || DEFAULT_JOB_SORT,
            limit: intParam(query, 'limit'),
            offset: intParam(query, 'offset'),
          },
          now,
        ),
    },
    DELETE: {
      call: ({ body }) => ({
        method: 'DELETE',
        path: '/api/v1/jobs',
        ...(body !== undefined ? { body } : {}),
      }),
      merge: (results, { body }, now) => mergeDelete(results, dryRunOf(body), now),
    },
  },
  '/api/v1/global/status': {
    GET: {
      call: () => ({ method: 'GET', path: '/api/v1/status' }),
      merge: (results, _ctx, now) => mergeStatus(results, now),
    },
  },
};

/** The region-picking header the request carries (single- or multi-value map), if any. */
function targetRegionHeader(event: APIGatewayProxyEvent): string | undefined {
  return targetRegionHeaderIn([
    ...Object.keys(event.headers ?? {}),
    ...Object.keys(event.multiValueHeaders ?? {}),
  ]);
}

/** API Gateway's decoded query parameters; the multi-value form keeps repeated keys. */
function queryOf(event: APIGatewayProxyEvent): QueryParameters {
  // A Map: parameters named `constructor` or `__proto__` are parameters like any other.
  const query = new Map<string, string | string[]>();
  for (const [key, values] of Object.entries(event.multiValueQueryStringParameters ?? {})) {
    if (values && values.length > 0) query.set(key, values.length === 1 ? values[0]! : [...values]);
  }
  for (const [key, value] of Object.entries(event.queryStringParameters ?? {})) {
    if (value !== undefined && !query.has(key)) query.set(key, value);
  }
  return Object.fromEntries(query);
}

function routePath(event: APIGatewayProxyEvent): string {
  const path = (event.path || '').replace(/(.)\/+$/, '$1');
  return Object.hasOwn(ROUTES, path) ? path : event.resource;
}

/** A promise that settles by `ms` at the latest (rejecting with a timeout) and aborts `controller`. */
async function within<T>(ms: number, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => {
        controller.abort();
        reject(new Error(`timeout after ${Math.max(0, Math.floor(ms))} ms`));
      },
      Math.max(0, ms),
    );
  });
  const work = run(controller.signal);
  work.catch(() => undefined);
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** What one aggregate request needs: the handler's dependencies with their defaults filled in. */
interface AggregatorContext {
  readonly discovery: RegionalApiDiscovery;
  readonly credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  readonly logger: EdgeLogger;
  readonly budgetMs: number;
  readonly regionTimeoutMs: number | undefined;
  readonly expectedRegions: readonly string[];
  readonly now: () => Date;
}

type Answer = APIGatewayProxyResult;

export function createHandler(deps: AggregatorDeps): AggregatorHandler {
  const ctx: AggregatorContext = {
    discovery: deps.discovery,
    credentials: deps.credentials,
    logger: deps.logger ?? createLogger(SERVICE_NAME),
    budgetMs: deps.settings?.budgetMs ?? DEFAULT_BUDGET_MS,
    regionTimeoutMs: deps.settings?.regionTimeoutMs,
    expectedRegions: deps.settings?.expectedRegions ?? [],
    now: deps.now ?? (() => new Date()),
  };
  return (event, context) => aggregate(ctx, event, context);
}

async function aggregate(
  ctx: AggregatorContext,
  event: APIGatewayProxyEvent,
  context: Parameters<AggregatorHandler>[1],
): Promise<Answer> {
  const started = performance.now();
  const matched = matchRoute(event);
  if ('statusCode' in matched) return matched;
  const { path, route } = matched;
  const body = requestBody(event);
  if (typeof body === 'object') return body;
  const routeContext: RouteContext = { query: queryOf(event), body };

  // One clock for the whole request: discovery and every region share the same budget.
  const remaining = () => {
    const byBudget = ctx.budgetMs - (performance.now() - started);
    const byLambda = context ? context.getRemainingTimeInMillis() - LAMBDA_MARGIN_MS : Infinity;
    return Math.min(byBudget, byLambda, ctx.regionTimeoutMs ?? Infinity);
  };

  const discovered = await discoverRegions(ctx, remaining);
  if ('statusCode' in discovered) return discovered;
  const results = await fanOut(discovered.apis, discovered.problems, route.call(routeContext), {
    deadlineMs: remaining(),
    credentials: ctx.credentials,
  });
  const merged = route.merge(results, routeContext, ctx.now());
  const failed = logFailedRegions(ctx.logger, results);
  // No region succeeded: the status says so, and the merged view still says why, region by region.
  const outcome = aggregateOutcome(results, path === HEALTH_PATH ? 'health' : 'other');
  ctx.logger.info(
    {
      route: `${event.httpMethod.toUpperCase()} ${path}`,
      status: outcome.statusCode,
      regions: Object.keys(results).length,
      failed_regions: failed,
      duration_ms: Math.round(performance.now() - started),
    },
    'aggregate answered',
  );
  return boundedAnswer(
    ctx.logger,
    respond(
      outcome.statusCode,
      outcome.message === undefined ? merged : { message: outcome.message, ...merged },
    ),
  );
}

/** The route the request names, or the 400/404/405 answer. */
function matchRoute(event: APIGatewayProxyEvent): { path: string; route: Route } | Answer {
  // Same rule as the control-plane proxy: the target region is chosen by the path, never by a header.
  const regionHeader = targetRegionHeader(event);
  if (regionHeader !== undefined) {
    return message(
      400,
      targetRegionRefusal(
        regionHeader,
        "/api/v1/global/* already covers every region; for one region, call that region's regional API.",
      ),
    );
  }
  const path = routePath(event);
  const methods = ROUTES[path];
  if (!methods) return message(404, 'Not found');
  const route = methods[event.httpMethod.toUpperCase()];
  if (!route) {
    return message(405, `Method ${event.httpMethod} is not allowed on ${path}`, {
      allow: Object.keys(methods).join(', '),
    });
  }
  return { path, route };
}

/** The body to pass on (undefined when there is none), or the 400 answer when it is not a JSON object. */
function requestBody(event: APIGatewayProxyEvent): string | undefined | Answer {
  if (event.body === null || event.body === undefined || event.body === '') return undefined;
  if (event.isBase64Encoded) return message(400, 'Base64-encoded bodies are not accepted');
  let parsed: unknown;
  try {
    parsed = JSON.parse(event.body);
  } catch {
    return message(400, 'The request body must be JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return message(400, 'The request body must be a JSON object');
  }
  return event.body;
}

/**
 * The regional APIs with every expected region listed; when discovery fails, each expected region as
 * failed, or the 503 answer when no region is expected.
 */
async function discoverRegions(
  ctx: AggregatorContext,
  remaining: () => number,
): Promise<DiscoveryResult | Answer> {
  let discovered: DiscoveryResult;
  try {
    discovered = await within(remaining(), (signal) => ctx.discovery.discover(signal));
  } catch (error) {
    ctx.logger.error(
      {
        source: ctx.discovery.source,
        error: errorMessage(error),
      },
      'regional API discovery failed',
    );
    if (ctx.expectedRegions.length === 0) {
      return message(503, 'Regional APIs could not be discovered; try again later');
    }
    // The regions are known even if their URLs are not: report each one as failed.
    discovered = {
      apis: [],
      problems: ctx.expectedRegions.map((region) => ({ region, error: 'regional API discovery failed' })),
    };
  }
  return withExpectedRegions(discovered, ctx.expectedRegions);
}

/** Logs each failed region; returns their names. */
function logFailedRegions(logger: EdgeLogger, results: Record<string, RegionResult>): string[] {
  const failed = Object.keys(results).filter((r) => !results[r]?.ok);
  for (const region of failed) {
    const result = results[region];
    logger.warn(
      {
        region,
        status: result?.status ?? null,
        error: result?.error ?? null,
        duration_ms: result?.duration_ms ?? 0,
      },
      'region failed',
    );
  }
  return failed;
}

/** The answer, or a 500 when it would not fit in Lambda's response limit. */
function boundedAnswer(logger: EdgeLogger, response: Answer): Answer {
  if (Buffer.byteLength(response.body) > MAX_RESPONSE_BYTES) {
    logger.error({ bytes: Buffer.byteLength(response.body) }, 'merged answer too large');
    return message(
      500,
      'The merged answer exceeds the Lambda response limit; request fewer jobs per region (limit)',
    );
  }
  return response;
}

export interface AggregatorFromEnvOptions {
  /** Reads the discovery parameters (default: a client in REGIONAL_API_PARAMETER_REGION). */
  ssmClient?: Pick<SSMClient, 'send'>;
  /** Signs the regional calls (default: the function's role). */
  credentials?: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  logger?: EdgeLogger;
}

/** Builds the handler from the environment (docs/aggregator.md, "Configuration"). */
export function createHandlerFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  opts: AggregatorFromEnvOptions = {},
): AggregatorHandler {
  const config = readAggregatorConfig(env);
  const logger = opts.logger ?? createLogger(SERVICE_NAME);
  return createHandler({
    discovery: discoveryFor(config.discovery, {
      ...(opts.ssmClient ? { ssmClient: opts.ssmClient } : {}),
      onStale: (error) =>
        logger.warn(
          {
            error: errorMessage(error),
          },
          'regional API discovery refresh failed; serving the cached list',
        ),
    }),
    credentials: opts.credentials ?? roleCredentials(),
    settings: config,
    logger,
  });
}

const logger = createLogger(SERVICE_NAME);

/** Lambda entry point (lambda/shared/entry-point.ts). */
export const handler = entryPoint(logger, createHandlerFromEnv, answerInternalError);

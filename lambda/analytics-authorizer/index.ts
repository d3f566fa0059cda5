/**
 * REQUEST authorizer of `POST /applications/{APPLICATION_ID}/events` (identity source: the
 * `Authorization` header, which carries the API key; `Bearer <key>` is accepted too).
 *
 * - A usable key (well-formed, known by its SHA-256, Enabled, application still exists) → an Allow
 *   policy for exactly its application's events resource, context `{applicationId, apiKeyId}`,
 *   principalId = the key id.
 * - A known key that may not send (disabled by PUT Enabled=false, or its application deleted) → an
 *   explicit Deny of the stage: API Gateway answers 403 (identified, but refused) and caches it.
 * - No credential we know (no header, malformed, unknown or deleted key) → throw
 *   `Error('Unauthorized')`: API Gateway answers 401 and caches that answer for the TTL too.
 * - More than one Authorization value (a repeated header, read from `multiValueHeaders`) → 401 without a
 *   lookup: which value is the key would otherwise depend on who reads the request — API Gateway's
 *   single-value `headers` map keeps only the last value — so one request could be judged on one value
 *   and cached under another (issue 25, "API key aliasing"). A REQUEST authorizer receives both
 *   `headers` and `multiValueHeaders` (API Gateway developer guide, "Input to an Amazon API Gateway
 *   Lambda authorizer", https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-lambda-authorizer-input.html).
 * - The decision never depends on the request path: API Gateway caches it under the header alone.
 * - A lookup failure (DynamoDB unavailable) throws a different error → API Gateway answers 500 and
 *   caches nothing, so a transient outage does not lock a valid key out for the TTL.
 * The key is never logged; a 6-character prefix of its hash identifies attempts in the logs.
 */
import { PlatformError } from '../../contracts/runtime/errors.js';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';
import { entryPoint } from '../shared/entry-point.js';
import { describeError } from '../shared/errors.js';
import { createLogger, type EdgeLogger } from '../shared/logger.js';
import { hashApiKey, isWellFormedApiKey, keyFingerprint } from '../shared/analytics/api-keys.js';
import type { ApiKeyStore } from '../shared/analytics/api-key-store.js';
import type { ApplicationStore } from '../shared/analytics/applications-store.js';
import { keyStoresFromEnv } from '../shared/analytics/key-stores.js';
import { headerValues } from '../shared/analytics/http.js';
import { allowPolicy, denyPolicy } from './policy.js';

export const SERVICE_NAME = 'analytics-authorizer';
/** The message API Gateway turns into 401; any other error becomes 500. */
export const UNAUTHORIZED = 'Unauthorized';

export type AuthorizerEvent = Pick<APIGatewayRequestAuthorizerEvent, 'methodArn' | 'headers'> &
  Partial<Pick<APIGatewayRequestAuthorizerEvent, 'multiValueHeaders' | 'requestContext'>>;
export type AuthorizerContext = Pick<Context, 'awsRequestId'>;
export type AuthorizerHandler = (
  event: AuthorizerEvent,
  context: AuthorizerContext,
) => Promise<APIGatewayAuthorizerResult>;

/** Thrown when a lookup fails: deliberately not 'Unauthorized', so API Gateway answers 500 uncached. */
export class AuthorizerUnavailableError extends PlatformError {
  override readonly name = 'AuthorizerUnavailableError';
}

export interface AuthorizerDeps {
  applications: ApplicationStore;
  apiKeys: ApiKeyStore;
  logger?: EdgeLogger;
}

const BEARER_RE = /^Bearer\s+/i;

export function createHandler(deps: AuthorizerDeps): AuthorizerHandler {
  const logger = deps.logger ?? createLogger(SERVICE_NAME);

  return async (event) => {
    const started = Date.now();
    const log = { request_id: event.requestContext?.requestId };
    const deny = (reason: string, fields: Record<string, unknown> = {}): never => {
      logger.warn({ ...log, reason, ...fields, duration_ms: Date.now() - started }, 'api key refused');
      throw new Error(UNAUTHORIZED);
    };

    const values = headerValues(event, 'authorization');
    if (values.length > 1) return deny('several_authorization_values', { values: values.length });
    const presented = values[0]?.trim().replace(BEARER_RE, '');
    if (presented === undefined || presented === '') return deny('missing_key');
    if (!isWellFormedApiKey(presented)) return deny('malformed_key');
    const hash = hashApiKey(presented);
    const fingerprint = keyFingerprint(hash);

    let identity: { applicationId: string; apiKeyId: string } | undefined;
    let refusal: string | undefined;
    try {
      const [ref] = await deps.apiKeys.findByHash(hash);
      if (ref === undefined) {
        refusal = 'unknown_key';
      } else {
        // The index may lag; the base item (read consistently) is the truth about Enabled and the hash.
        const [item, appExists] = await Promise.all([
          deps.apiKeys.get(ref.ApplicationId, ref.ApiKeyId),
          deps.applications.exists(ref.ApplicationId),
        ]);
        if (item === undefined || item.ApiKeyHash !== hash) refusal = 'unknown_key';
        else if (!item.Enabled) refusal = 'key_disabled';
        else if (!appExists) refusal = 'application_deleted';
        identity = { applicationId: ref.ApplicationId, apiKeyId: ref.ApiKeyId };
      }
    } catch (error) {
      logger.error(
        {
          ...log,
          key_fingerprint: fingerprint,
          duration_ms: Date.now() - started,
          ...describeError(error),
        },
        'api key lookup failed',
      );
      throw new AuthorizerUnavailableError('API key lookup failed', { cause: error });
    }
    if (identity !== undefined && (refusal === 'key_disabled' || refusal === 'application_deleted')) {
      logger.warn(
        {
          ...log,
          reason: refusal,
          key_fingerprint: fingerprint,
          application_id: identity.applicationId,
          api_key_id: identity.apiKeyId,
          duration_ms: Date.now() - started,
        },
        'api key refused',
      );
      return denyPolicy(event.methodArn, identity);
    }
    if (refusal !== undefined || identity === undefined) {
      return deny(refusal ?? 'unknown_key', {
        key_fingerprint: fingerprint,
        application_id: identity?.applicationId,
        api_key_id: identity?.apiKeyId,
      });
    }
    const result = allowPolicy(event.methodArn, identity);
    logger.info(
      {
        ...log,
        application_id: identity.applicationId,
        api_key_id: identity.apiKeyId,
        duration_ms: Date.now() - started,
      },
      'api key accepted',
    );
    return result;
  };
}

export interface AuthorizerFromEnvOptions {
  dynamodb?: DynamoDBClient;
  logger?: EdgeLogger;
}

export function createHandlerFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  options: AuthorizerFromEnvOptions = {},
): AuthorizerHandler {
  return createHandler({
    ...keyStoresFromEnv(env, options.dynamodb),
    ...(options.logger ? { logger: options.logger } : {}),
  });
}

const logger = createLogger(SERVICE_NAME);

/**
 * Lambda entry point (lambda/shared/entry-point.ts). A configuration error fails every request with a
 * 500 (never a cached 401).
 */
export const handler = entryPoint(logger, createHandlerFromEnv, async (error) => {
  throw new AuthorizerUnavailableError('analytics authorizer is not configured', { cause: error });
});

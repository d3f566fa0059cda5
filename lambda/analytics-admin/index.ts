/**
 * Administrative routes of the game-analytics API: applications and their API keys. API
 * Gateway REST (Lambda proxy, IAM-authorized) → JSON answers in the API's shapes; every error is
 * `{"message":"…"}` naming the field or the missing resource. Rules: docs/analytics-api.md.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { API_KEY_ID_PARAM, APPLICATION_ID_PARAM } from '../../contracts/api-routes.js';
import { answerInternalError, entryPoint } from '../shared/entry-point.js';
import { EdgeHttpError, errorResult, MESSAGES, requestFailure } from '../shared/errors.js';
import { jsonResult } from '../shared/json-result.js';
import { createLogger, type EdgeLogger } from '../shared/logger.js';
import { enabledInput, namedInput, pathId } from '../shared/analytics/admin-input.js';
import type { ApiKeyStore } from '../shared/analytics/api-key-store.js';
import type { ApplicationStore } from '../shared/analytics/applications-store.js';
import { keyStoresFromEnv } from '../shared/analytics/key-stores.js';
import { rawBody } from '../shared/analytics/http.js';
import { AdminOperations } from './operations.js';

export const SERVICE_NAME = 'analytics-admin';

export type AdminEvent = Pick<
  APIGatewayProxyEvent,
  'httpMethod' | 'resource' | 'path' | 'pathParameters' | 'body' | 'isBase64Encoded'
> & { requestContext?: { requestId?: string } };
export type AdminContext = Pick<Context, 'awsRequestId'>;
export type AdminHandler = (event: AdminEvent, context: AdminContext) => Promise<APIGatewayProxyResult>;

const APP = `/applications/{${APPLICATION_ID_PARAM}}`;
const KEYS = `${APP}/authorizations`;
const KEY = `${KEYS}/{${API_KEY_ID_PARAM}}`;

type Operation = (ops: AdminOperations, event: AdminEvent) => Promise<unknown>;

const appId = (e: AdminEvent) => pathId(e.pathParameters, APPLICATION_ID_PARAM);
const keyId = (e: AdminEvent) => pathId(e.pathParameters, API_KEY_ID_PARAM);

/** resource → method → operation: every admin route of analyticsApiDefinition. */
export const ADMIN_ROUTES: Readonly<Record<string, Readonly<Record<string, Operation>>>> = {
  '/applications': {
    POST: (ops, e) => ops.createApplication(namedInput(rawBody(e))),
    GET: (ops) => ops.listApplications(),
  },
  [APP]: {
    GET: (ops, e) => ops.getApplication(appId(e)),
    DELETE: (ops, e) => ops.deleteApplication(appId(e)),
  },
  [KEYS]: {
    POST: (ops, e) => {
      const id = appId(e);
      return ops.createAuthorization(id, namedInput(rawBody(e)));
    },
    GET: (ops, e) => ops.listAuthorizations(appId(e)),
  },
  [KEY]: {
    GET: (ops, e) => ops.getAuthorization(appId(e), keyId(e)),
    PUT: (ops, e) => {
      const [a, k] = [appId(e), keyId(e)];
      return ops.updateAuthorization(a, k, enabledInput(rawBody(e)));
    },
    DELETE: (ops, e) => {
      const [a, k] = [appId(e), keyId(e)];
      return ops.deleteAuthorization(a, k);
    },
  },
};

export interface AdminDeps {
  applications: ApplicationStore;
  apiKeys: ApiKeyStore;
  logger?: EdgeLogger;
  now?: () => Date;
  generateKey?: () => string;
  /** See AdminOperationsDeps.keyIndexWaitMs. */
  keyIndexWaitMs?: number;
}

/** The handler with injected dependencies (tests, the local platform). */
export function createHandler(deps: AdminDeps): AdminHandler {
  const logger = deps.logger ?? createLogger(SERVICE_NAME);
  const ops = new AdminOperations({
    applications: deps.applications,
    apiKeys: deps.apiKeys,
    logger,
    now: deps.now ?? (() => new Date()),
    ...(deps.generateKey ? { generateKey: deps.generateKey } : {}),
    ...(deps.keyIndexWaitMs !== undefined ? { keyIndexWaitMs: deps.keyIndexWaitMs } : {}),
  });

  return async (event) => {
    const started = Date.now();
    const fields = {
      request_id: event.requestContext?.requestId,
      method: event.httpMethod,
      resource: event.resource,
    };
    try {
      const methods = ADMIN_ROUTES[event.resource];
      if (methods === undefined) throw new EdgeHttpError(404, 'Not found', 'unknown_route');
      const operation = methods[event.httpMethod];
      if (operation === undefined) {
        throw new EdgeHttpError(405, MESSAGES.methodNotAllowed, 'method_not_allowed', {
          allow: Object.keys(methods).join(', '),
        });
      }
      const body = await operation(ops, event);
      logger.info({ ...fields, status: 200, duration_ms: Date.now() - started }, 'admin request');
      return jsonResult(200, body);
    } catch (error) {
      return errorResult(requestFailure(error, { logger, label: 'admin request', started, fields }));
    }
  };
}

export interface AdminFromEnvOptions {
  dynamodb?: DynamoDBClient;
  logger?: EdgeLogger;
  now?: () => Date;
  keyIndexWaitMs?: number;
}

export function createHandlerFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  options: AdminFromEnvOptions = {},
): AdminHandler {
  return createHandler({
    ...keyStoresFromEnv(env, options.dynamodb),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.keyIndexWaitMs !== undefined ? { keyIndexWaitMs: options.keyIndexWaitMs } : {}),
  });
}

const logger = createLogger(SERVICE_NAME);

/** Lambda entry point (lambda/shared/entry-point.ts). */
export const handler = entryPoint(logger, createHandlerFromEnv, answerInternalError);

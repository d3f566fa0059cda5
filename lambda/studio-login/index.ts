/**
 * GET /studio/login (analytics environment; docs/aggregator.md, "Studio login"): returns a
 * short-lived presigned SageMaker Studio URL for the caller's own user profile. The caller is whoever
 * the Cognito authorizer validated; the profile is found by a fixed mapping from one ID-token claim.
 * The URL is a bearer credential: it is returned to the caller and never logged.
 */
import { awsClientConfig } from '../../contracts/runtime/aws-clients.js';
import { errorMessage } from '../../contracts/runtime/errors.js';
import {
  CreatePresignedDomainUrlCommand,
  ResourceNotFound,
  SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { answerInternalError, entryPoint } from '../shared/entry-point.js';
import { createLogger, type EdgeLogger } from '../shared/logger.js';
import { readStudioLoginConfig, type StudioLoginSettings } from '../../contracts/env/studio-login.js';

export const SERVICE_NAME = 'studio-login';
/** SageMaker's UserProfileName pattern. */
const PROFILE_NAME_RE = /^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$/;

export interface StudioLoginDeps {
  sagemaker: Pick<SageMakerClient, 'send'>;
  settings: StudioLoginSettings;
  logger?: EdgeLogger;
}

export type StudioLoginHandler = (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;

const HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-store' };

function message(statusCode: number, text: string): APIGatewayProxyResult {
  return { statusCode, headers: HEADERS, body: JSON.stringify({ message: text }) };
}

/** The validated ID token's claims as the Cognito authorizer hands them over (string values). */
export function claimsOf(event: APIGatewayProxyEvent): Record<string, string> | undefined {
  const authorizer: unknown = event.requestContext?.authorizer;
  if (typeof authorizer !== 'object' || authorizer === null) return undefined;
  const claims: unknown = (authorizer as { claims?: unknown }).claims;
  if (typeof claims !== 'object' || claims === null) return undefined;
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(claims)) {
    if (typeof value === 'string') out[key] = value;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * The profile name: the claim's value verbatim when it is a valid profile name, otherwise none.
 * Deliberately no "sanitizing": mapping `a.b` and `a-b` to one profile would let one user open another
 * user's Studio. Pools whose usernames are not valid profile names use `STUDIO_PROFILE_CLAIM=sub`.
 */
export function profileNameFor(claims: Record<string, string>, claim: string): string | undefined {
  const value = claims[claim];
  return value !== undefined && PROFILE_NAME_RE.test(value) ? value : undefined;
}

export function createHandler(deps: StudioLoginDeps): StudioLoginHandler {
  const logger = deps.logger ?? createLogger(SERVICE_NAME);
  const { settings } = deps;

  return async (event) => {
    if (
      event.httpMethod.toUpperCase() !== 'GET' ||
      !/^\/studio\/login\/?$/.test(event.path || event.resource)
    ) {
      return message(404, 'Not found');
    }
    const claims = claimsOf(event);
    // Only an ID token names the user; the authorizer also accepts access tokens when scopes are set.
    if (!claims?.sub || (claims.token_use !== undefined && claims.token_use !== 'id')) {
      return message(401, 'Unauthorized');
    }
    const profile = profileNameFor(claims, settings.profileClaim);
    if (!profile) {
      logger.warn({ sub: claims.sub, claim: settings.profileClaim }, 'no Studio profile name for caller');
      return message(404, 'No SageMaker Studio user profile for this user');
    }
    try {
      const result = await deps.sagemaker.send(
        new CreatePresignedDomainUrlCommand({
          DomainId: settings.domainId,
          UserProfileName: profile,
          ExpiresInSeconds: settings.urlExpiresInSeconds,
          SessionExpirationDurationInSeconds: settings.sessionExpiresInSeconds,
        }),
      );
      if (!result.AuthorizedUrl) throw new Error('CreatePresignedDomainUrl returned no URL');
      logger.info({ sub: claims.sub, user_profile: profile }, 'Studio login URL issued');
      return {
        statusCode: 200,
        headers: HEADERS,
        body: JSON.stringify({
          url: result.AuthorizedUrl,
          expires_in_seconds: settings.urlExpiresInSeconds,
          session_expires_in_seconds: settings.sessionExpiresInSeconds,
          user_profile: profile,
        }),
      };
    } catch (error) {
      if (
        error instanceof ResourceNotFound ||
        (error as { name?: unknown } | null)?.name === 'ResourceNotFound'
      ) {
        logger.info({ sub: claims.sub, user_profile: profile }, 'caller has no Studio user profile');
        return message(404, 'No SageMaker Studio user profile for this user');
      }
      logger.error(
        {
          sub: claims.sub,
          error_name: (error as { name?: unknown } | null)?.name ?? 'Error',
          error: errorMessage(error),
        },
        'CreatePresignedDomainUrl failed',
      );
      return message(500, 'Could not create a Studio login URL');
    }
  };
}

export interface StudioLoginFromEnvOptions {
  sagemaker?: Pick<SageMakerClient, 'send'>;
  logger?: EdgeLogger;
}

/** Builds the handler from the environment (STUDIO_DOMAIN_ID and the optional settings). */
export function createHandlerFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  opts: StudioLoginFromEnvOptions = {},
): StudioLoginHandler {
  const { region, ...settings } = readStudioLoginConfig(env);
  return createHandler({
    sagemaker:
      opts.sagemaker ??
      new SageMakerClient(
        awsClientConfig({ component: 'studio-login', ...(region !== undefined ? { region } : {}) }),
      ),
    settings,
    ...(opts.logger ? { logger: opts.logger } : {}),
  });
}

const logger = createLogger(SERVICE_NAME);

/** Lambda entry point (lambda/shared/entry-point.ts). */
export const handler = entryPoint(logger, createHandlerFromEnv, answerInternalError);

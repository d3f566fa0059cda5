/**
 * Secrets Manager rotation for the envelope signing-key secret `{"current":"…","previous":"…"}`.
 *
 * Four steps, each safe to retry (Secrets Manager retries a failed step with the same token):
 * - createSecret: AWSPENDING = {"current": NEW, "previous": <AWSCURRENT.current>}; nothing to do when the
 *   pending version for this token already exists.
 * - setSecret: nothing. The secret is its own source of truth: no database or downstream system holds a
 *   copy to update. Signers and verifiers read the secret itself (60 s cache).
 * - testSecret: the pending version parses, both keys are non-empty and differ.
 * - finishSecret: AWSCURRENT moves to the new version.
 * Because the new version still carries the old key as `previous`, verifiers (which accept current and
 * previous) keep accepting requests from signers that have not reloaded yet.
 */
import { awsClientConfig } from '../../contracts/runtime/aws-clients.js';
import { PlatformError } from '../../contracts/runtime/errors.js';
import { randomBytes } from 'node:crypto';
import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import type { SecretsManagerRotationEvent } from 'aws-lambda';
import { entryPoint, failInvocation } from '../shared/entry-point.js';
import { describeError } from '../shared/errors.js';
import { readFunctionRegionConfig } from '../shared/function-region.js';
import { createLogger, type EdgeLogger } from '../shared/logger.js';
import { parseSigningKeys } from '../../contracts/envelope/signing-keys.js';

export const SERVICE_NAME = 'signing-key-rotation';

const AWSCURRENT = 'AWSCURRENT';
const AWSPENDING = 'AWSPENDING';

/** 32 random bytes as base64url (43 characters): 256 bits for HMAC-SHA256. */
export function generateSigningKey(): string {
  return randomBytes(32).toString('base64url');
}

export class RotationError extends PlatformError {
  override readonly name = 'RotationError';
}

export interface RotationDeps {
  client: Pick<SecretsManagerClient, 'send'>;
  logger?: EdgeLogger;
  generateKey?: () => string;
}

export type RotationHandler = (event: SecretsManagerRotationEvent) => Promise<void>;

const STEPS = new Set(['createSecret', 'setSecret', 'testSecret', 'finishSecret']);

/** What the steps share: the handler's dependencies with their defaults filled in. */
interface RotationContext {
  readonly client: Pick<SecretsManagerClient, 'send'>;
  readonly logger: EdgeLogger;
  readonly generateKey: () => string;
}

export function createHandler(deps: RotationDeps): RotationHandler {
  const ctx: RotationContext = {
    client: deps.client,
    logger: deps.logger ?? createLogger(SERVICE_NAME),
    generateKey: deps.generateKey ?? generateSigningKey,
  };
  return (event) => rotate(ctx, event);
}

async function rotate(ctx: RotationContext, event: SecretsManagerRotationEvent): Promise<void> {
  const { SecretId: secretId, ClientRequestToken: token, Step: step } = event;
  const fields = { step, secret_id: secretId, version_id: token };
  try {
    if (!STEPS.has(step)) throw new RotationError(`unknown rotation step ${JSON.stringify(step)}`);
    const versions = await pendingVersions(ctx, secretId, token, fields);
    if (versions === undefined) return;
    switch (step) {
      case 'createSecret':
        return await createSecret(ctx, secretId, token);
      case 'setSecret':
        // No downstream system holds a copy of the key: services read the secret itself.
        ctx.logger.info(fields, 'setSecret: nothing to set');
        return;
      case 'testSecret':
        return await testSecret(ctx, secretId, token);
      case 'finishSecret':
        return await finishSecret(ctx, secretId, token, versions);
    }
  } catch (error) {
    ctx.logger.error({ ...fields, ...describeError(error) }, 'rotation step failed');
    throw error;
  }
}

/**
 * The secret's versions by stage when `token` is the pending version of an enabled rotation, or
 * undefined when it is already AWSCURRENT (nothing left to do); throws for anything else.
 */
async function pendingVersions(
  ctx: RotationContext,
  secretId: string,
  token: string,
  fields: Record<string, string>,
): Promise<Record<string, string[]> | undefined> {
  const described = await ctx.client.send(new DescribeSecretCommand({ SecretId: secretId }));
  if (!described.RotationEnabled) {
    throw new RotationError(`secret ${secretId} does not have rotation enabled`);
  }
  const versions = described.VersionIdsToStages ?? {};
  const stages = versions[token];
  if (stages === undefined) {
    throw new RotationError(`secret version ${token} has no stage for rotation of secret ${secretId}`);
  }
  if (stages.includes(AWSCURRENT)) {
    // Retried after finishSecret succeeded, or a stale invocation: nothing left to do.
    ctx.logger.info(fields, 'version is already AWSCURRENT; nothing to do');
    return undefined;
  }
  if (!stages.includes(AWSPENDING)) {
    throw new RotationError(
      `secret version ${token} is not set as AWSPENDING for rotation of secret ${secretId}`,
    );
  }
  return versions;
}

async function getSecretString(
  client: RotationContext['client'],
  secretId: string,
  stage: string,
  versionId?: string,
): Promise<string> {
  const out = await client.send(
    new GetSecretValueCommand({
      SecretId: secretId,
      VersionStage: stage,
      ...(versionId !== undefined ? { VersionId: versionId } : {}),
    }),
  );
  if (typeof out.SecretString !== 'string') {
    throw new RotationError(`secret ${stage} version has no SecretString`);
  }
  return out.SecretString;
}

async function createSecret(ctx: RotationContext, secretId: string, token: string): Promise<void> {
  // Read AWSCURRENT first: a malformed current secret must stop the rotation before anything is written.
  const current = parseSigningKeys(await getSecretString(ctx.client, secretId, AWSCURRENT));
  try {
    await getSecretString(ctx.client, secretId, AWSPENDING, token);
    ctx.logger.info(
      {
        step: 'createSecret',
        version_id: token,
      },
      'createSecret: pending version already exists',
    );
    return;
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  const next = ctx.generateKey();
  if (next.length === 0 || next === current.current) throw new RotationError('generated key is unusable');
  await ctx.client.send(
    new PutSecretValueCommand({
      SecretId: secretId,
      ClientRequestToken: token,
      SecretString: JSON.stringify({ current: next, previous: current.current }),
      VersionStages: [AWSPENDING],
    }),
  );
  ctx.logger.info({ step: 'createSecret', version_id: token }, 'createSecret: pending version written');
}

async function testSecret(ctx: RotationContext, secretId: string, token: string): Promise<void> {
  let keys;
  try {
    keys = parseSigningKeys(await getSecretString(ctx.client, secretId, AWSPENDING, token));
  } catch (error) {
    if (error instanceof ResourceNotFoundException) throw error;
    // parseSigningKeys never quotes the secret, so its message is safe to keep.
    throw new RotationError(`testSecret: pending version is invalid: ${(error as Error).message}`);
  }
  if (keys.previous === undefined)
    throw new RotationError('testSecret: pending version has no "previous" key');
  if (keys.previous === keys.current) throw new RotationError('testSecret: "current" equals "previous"');
  ctx.logger.info({ step: 'testSecret', version_id: token }, 'testSecret: pending version is valid');
}

async function finishSecret(
  ctx: RotationContext,
  secretId: string,
  token: string,
  versions: Record<string, string[]>,
): Promise<void> {
  const currentVersion = Object.entries(versions).find(([, stages]) => stages.includes(AWSCURRENT))?.[0];
  if (currentVersion === token) {
    ctx.logger.info(
      {
        step: 'finishSecret',
        version_id: token,
      },
      'finishSecret: version is already AWSCURRENT',
    );
    return;
  }
  await ctx.client.send(
    new UpdateSecretVersionStageCommand({
      SecretId: secretId,
      VersionStage: AWSCURRENT,
      MoveToVersionId: token,
      ...(currentVersion !== undefined ? { RemoveFromVersionId: currentVersion } : {}),
    }),
  );
  ctx.logger.info(
    {
      step: 'finishSecret',
      version_id: token,
      previous_version_id: currentVersion,
    },
    'finishSecret: AWSCURRENT moved',
  );
}

export interface RotationFromEnvOptions {
  client?: Pick<SecretsManagerClient, 'send'>;
  logger?: EdgeLogger;
}

/** Builds the handler from the environment: its Secrets Manager client works in AWS_REGION. */
export function createHandlerFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  opts: RotationFromEnvOptions = {},
): RotationHandler {
  const { region } = readFunctionRegionConfig(env);
  return createHandler({
    client:
      opts.client ?? new SecretsManagerClient(awsClientConfig({ component: 'signing-key-rotation', region })),
    ...(opts.logger ? { logger: opts.logger } : {}),
  });
}

const logger = createLogger(SERVICE_NAME);

/** Lambda entry point (lambda/shared/entry-point.ts): a bad configuration fails the rotation step. */
export const handler = entryPoint(logger, createHandlerFromEnv, failInvocation);

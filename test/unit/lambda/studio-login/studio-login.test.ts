import { afterEach, beforeEach, describe, expect, jest, test } from '@jest/globals';
import {
  CreatePresignedDomainUrlCommand,
  ResourceNotFound,
  SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { createLogger } from '../../../../lambda/shared/logger.js';
import { readStudioLoginConfig, type StudioLoginSettings } from '../../../../contracts/env/studio-login.js';
import { createHandler, profileNameFor } from '../../../../lambda/studio-login/index.js';
import { apiEvent } from '../events.js';

const PRESIGNED =
  'https://d-abc123.studio.us-east-1.sagemaker.aws/auth?token=eyJhbGciOiJSUzI1NiJ9.SECRET-TOKEN-MATERIAL';
const SETTINGS: StudioLoginSettings = {
  domainId: 'd-abc123',
  profileClaim: 'cognito:username',
  urlExpiresInSeconds: 60,
  sessionExpiresInSeconds: 3600,
};

function event(
  claims: Record<string, string> | null,
  path = '/studio/login',
  method = 'GET',
): APIGatewayProxyEvent {
  return apiEvent(method, path, {
    headers: { Authorization: 'eyJraWQiOiJ-ID-TOKEN' },
    requestContext: {
      ...(claims ? { authorizer: { claims } } : {}),
    } as unknown as APIGatewayProxyEvent['requestContext'],
  });
}

const ALICE = {
  sub: '3f1c9a70-8d2e-4b7a-9c55-1a2b3c4d5e6f',
  'cognito:username': 'alice',
  email: 'alice@example.com',
  token_use: 'id',
};

describe('GET /studio/login', () => {
  const sagemaker = mockClient(SageMakerClient);
  let output: string[];

  beforeEach(() => {
    sagemaker.reset();
    output = [];
    // Powertools writes info to stdout and warn/error to stderr: capture both.
    for (const stream of [process.stdout, process.stderr]) {
      jest.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
        output.push(String(chunk));
        return true;
      });
    }
  });
  afterEach(() => {
    jest.restoreAllMocks();
  });

  const handler = (settings: StudioLoginSettings = SETTINGS) =>
    createHandler({
      sagemaker: new SageMakerClient({ region: 'us-east-1' }),
      settings,
      logger: createLogger('studio-login'),
    });

  test("returns a short-lived presigned URL for the caller's own profile and never logs it", async () => {
    sagemaker.on(CreatePresignedDomainUrlCommand).resolves({ AuthorizedUrl: PRESIGNED });
    const result = await handler()(event(ALICE));
    expect(result.statusCode).toBe(200);
    expect(result.headers?.['cache-control']).toBe('no-store');
    expect(JSON.parse(result.body)).toEqual({
      url: PRESIGNED,
      expires_in_seconds: 60,
      session_expires_in_seconds: 3600,
      user_profile: 'alice',
    });
    const calls = sagemaker.commandCalls(CreatePresignedDomainUrlCommand);
    expect(calls.map((c) => c.args[0].input)).toEqual([
      {
        DomainId: 'd-abc123',
        UserProfileName: 'alice',
        ExpiresInSeconds: 60,
        SessionExpirationDurationInSeconds: 3600,
      },
    ]);
    const logs = output.join('');
    expect(logs).toContain('Studio login URL issued');
    expect(logs).not.toContain('SECRET-TOKEN-MATERIAL');
    expect(logs).not.toContain('sagemaker.aws');
    expect(logs).not.toContain('ID-TOKEN');
  });

  test('the profile claim is configurable (sub for pools whose usernames are not profile names)', async () => {
    sagemaker.on(CreatePresignedDomainUrlCommand).resolves({ AuthorizedUrl: PRESIGNED });
    await handler({ ...SETTINGS, profileClaim: 'sub' })(
      event({ ...ALICE, 'cognito:username': 'alice.smith@example.com' }),
    );
    expect(sagemaker.commandCalls(CreatePresignedDomainUrlCommand)[0]?.args[0].input.UserProfileName).toBe(
      ALICE.sub,
    );
  });

  test('404 {"message"} when the caller has no profile (SageMaker ResourceNotFound)', async () => {
    sagemaker
      .on(CreatePresignedDomainUrlCommand)
      .rejects(new ResourceNotFound({ message: 'User profile does not exist', $metadata: {} }));
    const result = await handler()(event(ALICE));
    expect(result.statusCode).toBe(404);
    expect(JSON.parse(result.body)).toEqual({ message: 'No SageMaker Studio user profile for this user' });
  });

  test('404 without calling SageMaker when the claim is not a valid profile name (no lossy sanitizing)', async () => {
    const result = await handler()(event({ ...ALICE, 'cognito:username': 'alice.smith' }));
    expect(result.statusCode).toBe(404);
    expect(sagemaker.commandCalls(CreatePresignedDomainUrlCommand)).toHaveLength(0);
    expect(profileNameFor({ u: 'alice.smith' }, 'u')).toBeUndefined();
    expect(profileNameFor({ u: 'a'.repeat(64) }, 'u')).toBeUndefined();
    expect(profileNameFor({ u: 'data-sci-01' }, 'u')).toBe('data-sci-01');
    expect(profileNameFor({}, 'u')).toBeUndefined();
  });

  test('401 when claims are missing, lack sub, or come from an access token', async () => {
    const cases: (Record<string, string> | null)[] = [
      null,
      {},
      { 'cognito:username': 'alice' },
      { ...ALICE, token_use: 'access' },
    ];
    for (const claims of cases) {
      const result = await handler()(event(claims));
      expect(result.statusCode).toBe(401);
      expect(JSON.parse(result.body)).toEqual({ message: 'Unauthorized' });
    }
    expect(sagemaker.commandCalls(CreatePresignedDomainUrlCommand)).toHaveLength(0);
  });

  test('other SageMaker failures are 500 {"message"}; other paths 404', async () => {
    sagemaker
      .on(CreatePresignedDomainUrlCommand)
      .rejects(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));
    const failed = await handler()(event(ALICE));
    expect(failed.statusCode).toBe(500);
    expect(JSON.parse(failed.body)).toEqual({ message: 'Could not create a Studio login URL' });
    expect(output.join('')).toContain('ThrottlingException');
    expect((await handler()(event(ALICE, '/studio/callback'))).statusCode).toBe(404);
    expect((await handler()(event(ALICE, '/studio/login', 'POST'))).statusCode).toBe(404);
  });
});

describe('readStudioLoginConfig', () => {
  test('defaults: 60 s URL, 1 h session, cognito:username', () => {
    expect(readStudioLoginConfig({ STUDIO_DOMAIN_ID: 'd-1' })).toEqual({
      domainId: 'd-1',
      profileClaim: 'cognito:username',
      urlExpiresInSeconds: 60,
      sessionExpiresInSeconds: 3600,
    });
  });

  test("SageMaker's ranges are enforced (URL expiry ≤ 300 s)", () => {
    expect(() => readStudioLoginConfig({})).toThrow('STUDIO_DOMAIN_ID');
    expect(() =>
      readStudioLoginConfig({ STUDIO_DOMAIN_ID: 'd-1', STUDIO_URL_EXPIRES_SECONDS: '301' }),
    ).toThrow('5..300');
    expect(() =>
      readStudioLoginConfig({ STUDIO_DOMAIN_ID: 'd-1', STUDIO_SESSION_EXPIRES_SECONDS: '60' }),
    ).toThrow('1800');
    expect(
      readStudioLoginConfig({
        STUDIO_DOMAIN_ID: 'd-1',
        STUDIO_URL_EXPIRES_SECONDS: '300',
        STUDIO_PROFILE_CLAIM: 'sub',
      }),
    ).toMatchObject({ urlExpiresInSeconds: 300, profileClaim: 'sub' });
  });
});

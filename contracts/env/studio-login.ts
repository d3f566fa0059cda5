/**
 * Studio login's environment contract (docs/aggregator.md, "Studio login"): `studioLoginEnvironment`
 * writes it (the global stack), `readStudioLoginConfig` reads it on the first invocation, reporting
 * every problem at once.
 */
import { EnvReader, envVariables } from './reader.js';

/** SageMaker's ExpiresInSeconds range (validity of the URL itself). */
const URL_EXPIRY_RANGE = { min: 5, max: 300, default: 60 } as const;
/** SageMaker's SessionExpirationDurationInSeconds range (the Studio session the URL opens). */
const SESSION_RANGE = { min: 1800, max: 43_200, default: 3600 } as const;
const DEFAULT_PROFILE_CLAIM = 'cognito:username';

export interface StudioLoginSettings {
  readonly domainId: string;
  /** ID-token claim whose value is the profile name (default `cognito:username`). */
  readonly profileClaim: string;
  readonly urlExpiresInSeconds: number;
  readonly sessionExpiresInSeconds: number;
}

export interface StudioLoginConfig extends StudioLoginSettings {
  /** Region of the Studio domain; default the function's own. */
  readonly region?: string;
}

/** What a writer sets; a value left out takes the reader's default. */
export type StudioLoginEnvironment = Pick<StudioLoginConfig, 'domainId' | 'region'> &
  Partial<Omit<StudioLoginConfig, 'domainId' | 'region'>>;

export function studioLoginEnvironment(settings: StudioLoginEnvironment): Record<string, string> {
  return envVariables({
    STUDIO_DOMAIN_ID: settings.domainId,
    STUDIO_PROFILE_CLAIM: settings.profileClaim,
    STUDIO_URL_EXPIRES_SECONDS: settings.urlExpiresInSeconds,
    STUDIO_SESSION_EXPIRES_SECONDS: settings.sessionExpiresInSeconds,
    STUDIO_REGION: settings.region,
  });
}

/** Reads and validates the environment; throws an EnvironmentError listing every problem. */
export function readStudioLoginConfig(env: NodeJS.ProcessEnv): StudioLoginConfig {
  const r = new EnvReader(env);
  const domainId = r.required('STUDIO_DOMAIN_ID', 'the SageMaker Studio domain');
  const profileClaim = r.string('STUDIO_PROFILE_CLAIM', DEFAULT_PROFILE_CLAIM);
  const urlExpiresInSeconds = r.integer(
    'STUDIO_URL_EXPIRES_SECONDS',
    URL_EXPIRY_RANGE.default,
    URL_EXPIRY_RANGE,
  );
  const sessionExpiresInSeconds = r.integer(
    'STUDIO_SESSION_EXPIRES_SECONDS',
    SESSION_RANGE.default,
    SESSION_RANGE,
  );
  const region = r.optional('STUDIO_REGION');
  r.finish();
  return Object.freeze({
    domainId: domainId ?? '',
    profileClaim,
    urlExpiresInSeconds,
    sessionExpiresInSeconds,
    ...(region !== undefined ? { region } : {}),
  });
}

/**
 * AWS credentials for SigV4: the standard chain (`@aws-sdk/credential-providers`: environment, shared
 * config and credentials files with profiles and SSO, web identity, container and instance metadata),
 * or, with `--local`, the pair the local platform printed. Resolved once per run; failures are exit 3
 * with what to set.
 */
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { CredentialsError } from './errors.js';

export type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';

const CREDENTIALS_HINT =
  'Set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (plus AWS_SESSION_TOKEN for temporary credentials), ' +
  'or choose a profile with --profile / AWS_PROFILE (for SSO profiles run `aws sso login --profile NAME` ' +
  'first). Against the local platform use --local.';

/** The chain, memoized: every signed request and the CloudFormation client share one resolution. */
export function chainCredentials(profile?: string): AwsCredentialIdentityProvider {
  let pending: Promise<AwsCredentialIdentity> | undefined;
  return () => {
    pending ??= (async () => {
      const { fromNodeProviderChain } = await import('@aws-sdk/credential-providers');
      try {
        return await fromNodeProviderChain(profile === undefined ? {} : { profile })();
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new CredentialsError(
          `No AWS credentials${profile === undefined ? '' : ` for profile "${profile}"`}: ${reason}`,
          CREDENTIALS_HINT,
        );
      }
    })();
    return pending;
  };
}

export function staticCredentials(credentials: AwsCredentialIdentity): AwsCredentialIdentityProvider {
  return () => Promise.resolve(credentials);
}

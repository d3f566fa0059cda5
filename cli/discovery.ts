/**
 * Discovery of a deployed stage: the outputs of the platform's CloudFormation stacks (DescribeStacks),
 * read with the caller's credentials in the stack's region and cached briefly (discovery-cache.ts).
 */
import type { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import type { AwsCredentialIdentityProvider } from './credentials.js';
import { CredentialsError, DiscoveryError } from './errors.js';
import type { DiscoveryCache } from './discovery-cache.js';

export interface StackDiscoveryOptions {
  credentials: AwsCredentialIdentityProvider;
  cache: DiscoveryCache;
  /** CloudFormation endpoint override (`AWS_ENDPOINT_URL_CLOUDFORMATION`), e.g. a local stand-in. */
  endpoint?: string;
  /** Attempts per DescribeStacks (default DISCOVERY_ATTEMPTS); 1 for shell completion. */
  maxAttempts?: number;
}

/** Attempts per DescribeStacks: the SDK's standard retry mode's default (3). */
export const DISCOVERY_ATTEMPTS = 3;

/** Error codes AWS uses for credentials it does not accept. */
const REFUSED_CREDENTIALS = new Set([
  'ExpiredToken',
  'ExpiredTokenException',
  'InvalidClientTokenId',
  'UnrecognizedClientException',
  'SignatureDoesNotMatch',
  'InvalidSignatureException',
]);

export class StackDiscovery {
  private readonly clients = new Map<string, CloudFormationClient>();

  constructor(private readonly opts: StackDiscoveryOptions) {}

  /** One stack output; DiscoveryError when the stack or the output does not exist. */
  async output(stackName: string, region: string, outputKey: string, hint: string): Promise<string> {
    const outputs = await this.outputs(stackName, region, hint);
    const value = outputs[outputKey];
    if (value === undefined || value === '') {
      throw new DiscoveryError(
        `Stack ${stackName} in ${region} has no output ${outputKey}`,
        `Redeploy the stack with this version of the platform, or ${hint}`,
      );
    }
    return value;
  }

  async outputs(stackName: string, region: string, hint: string): Promise<Record<string, string>> {
    const credentials = await this.opts.credentials();
    const key = { accessKeyId: credentials.accessKeyId, region, stackName };
    const cached = await this.opts.cache.get(key);
    if (cached !== undefined) return cached;
    const outputs = await this.describe(stackName, region, hint);
    await this.opts.cache.put(key, outputs);
    return outputs;
  }

  private async describe(stackName: string, region: string, hint: string): Promise<Record<string, string>> {
    // Loaded on first use: commands that need no discovery start without the SDK.
    const sdk = await import('@aws-sdk/client-cloudformation');
    let client = this.clients.get(region);
    if (client === undefined) {
      client = new sdk.CloudFormationClient({
        region,
        credentials: this.opts.credentials,
        maxAttempts: this.opts.maxAttempts ?? DISCOVERY_ATTEMPTS,
        ...(this.opts.endpoint ? { endpoint: this.opts.endpoint } : {}),
      });
      this.clients.set(region, client);
    }
    try {
      const { Stacks = [] } = await client.send(new sdk.DescribeStacksCommand({ StackName: stackName }));
      const stack = Stacks[0];
      if (stack === undefined)
        throw new DiscoveryError(`Stack ${stackName} does not exist in ${region}`, hint);
      return Object.fromEntries(
        (stack.Outputs ?? [])
          .filter((o) => o.OutputKey !== undefined && o.OutputValue !== undefined)
          .map((o) => [o.OutputKey ?? '', o.OutputValue ?? '']),
      );
    } catch (error) {
      throw describeError(error, stackName, region, hint);
    }
  }

  close(): void {
    for (const client of this.clients.values()) client.destroy();
    this.clients.clear();
  }
}

function describeError(error: unknown, stackName: string, region: string, hint: string): Error {
  if (error instanceof CredentialsError || error instanceof DiscoveryError) return error;
  const name = error instanceof Error ? error.name : '';
  const message = error instanceof Error ? error.message : String(error);
  if (name === 'CredentialsProviderError') {
    return new CredentialsError(`No AWS credentials: ${message}`);
  }
  if (REFUSED_CREDENTIALS.has(name)) {
    return new CredentialsError(
      `AWS refused the credentials (${name}): ${message}`,
      'Refresh them (for SSO: `aws sso login`), or check AWS_PROFILE / --profile.',
    );
  }
  if (name === 'ValidationError' && /does not exist/i.test(message)) {
    return new DiscoveryError(`Stack ${stackName} does not exist in ${region}`, hint);
  }
  if (name === 'AccessDenied' || name === 'AccessDeniedException') {
    return new DiscoveryError(
      `Not allowed to read stack ${stackName} in ${region}: ${message}`,
      `The caller needs cloudformation:DescribeStacks on the platform's stacks; or ${hint}`,
    );
  }
  return new DiscoveryError(`Could not read stack ${stackName} in ${region}: ${message}`, hint);
}

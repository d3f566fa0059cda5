/**
 * The one way Lambdas and services configure an AWS SDK client: bounded connection and request times
 * (a hung call must fail, never hold up a request, a loop or a shutdown), the SDK's standard retries, the
 * region, and a user agent naming the platform and the component (CloudTrail and service logs tell our
 * calls apart). Usage: `new DynamoDBClient(awsClientConfig({ component: 'inference-proxy', region }))`.
 * Tests keep injecting their own clients, or an endpoint through `endpoint`.
 */
import { NodeHttpHandler } from '@smithy/node-http-handler';

export interface AwsClientOptions {
  /** Who calls: added to the user agent (`gco-platform/<component>`). */
  readonly component: string;
  /** Default: the SDK's (AWS_REGION in Lambda and with IRSA / Pod Identity). */
  readonly region?: string;
  /** Another endpoint (local stand-ins, tests). */
  readonly endpoint?: string;
  /** Time to open a connection; default 3 s. */
  readonly connectionTimeoutMs?: number;
  /** Time a request may wait for its answer; default 10 s. */
  readonly requestTimeoutMs?: number;
  /** Attempts in all, the first included (SDK standard retry mode); default 3. */
  readonly maxAttempts?: number;
}

export interface AwsClientConfig {
  readonly region?: string;
  readonly endpoint?: string;
  readonly requestHandler: NodeHttpHandler;
  readonly maxAttempts: number;
  readonly customUserAgent: string;
}

export const AWS_CLIENT_DEFAULTS = { connectionTimeoutMs: 3_000, requestTimeoutMs: 10_000, maxAttempts: 3 };

export function awsClientConfig(options: AwsClientOptions): AwsClientConfig {
  return {
    ...(options.region !== undefined ? { region: options.region } : {}),
    ...(options.endpoint !== undefined ? { endpoint: options.endpoint } : {}),
    requestHandler: new NodeHttpHandler({
      connectionTimeout: options.connectionTimeoutMs ?? AWS_CLIENT_DEFAULTS.connectionTimeoutMs,
      requestTimeout: options.requestTimeoutMs ?? AWS_CLIENT_DEFAULTS.requestTimeoutMs,
    }),
    maxAttempts: options.maxAttempts ?? AWS_CLIENT_DEFAULTS.maxAttempts,
    customUserAgent: `gco-platform/${options.component}`,
  };
}

/**
 * AWS Signature Version 4 for calls from our Lambdas to IAM-authorized API Gateway APIs (service
 * `execute-api`). The caller's own role signs: credentials come from the default provider chain
 * (the Lambda execution role); tests inject static credentials.
 */
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Hash } from '@smithy/hash-node';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';

export type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';

const EXECUTE_API_SERVICE = 'execute-api';

/** Query parameters as API Gateway hands them to a Lambda (already decoded); repeated keys → arrays. */
export type QueryParameters = Readonly<Record<string, string | readonly string[]>>;

export interface SigV4Input {
  method: string;
  /** Base URL of the API including its stage, e.g. `https://abc.execute-api.us-east-1.amazonaws.com/prod`. */
  baseUrl: string;
  /** Path below the base URL, starting with `/`; sent and signed verbatim (no further escaping). */
  path: string;
  query?: QueryParameters;
  headers?: Readonly<Record<string, string>>;
  /** Text, or exact bytes (a body that is not UTF-8 is signed as the bytes it is). */
  body?: string | Uint8Array;
  /** Region of the target API: the signature is only valid there. */
  region: string;
  service?: string;
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /** Defaults to now; tests pin it to reproduce known signatures. */
  signingDate?: Date;
}

export interface SigV4SignedRequest {
  method: string;
  /** The URL to send, with the query encoded exactly as it was signed. */
  url: string;
  /** Headers to send. `host` is left out: fetch derives the same value from the URL. */
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

/** RFC 3986 percent-encoding, the one SigV4 canonicalizes with (encodeURIComponent leaves !'()* alone). */
export function rfc3986Encode(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** `a=1&b=x%20y`, in insertion order; repeated keys become repeated pairs. */
export function encodeQuery(query: QueryParameters | undefined): string {
  if (!query) return '';
  const pairs: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    for (const v of typeof value === 'string' ? [value] : value) {
      pairs.push(`${rfc3986Encode(key)}=${rfc3986Encode(v)}`);
    }
  }
  return pairs.join('&');
}

const sha256 = Hash.bind(null, 'sha256');

/** Signs one request; the result can be passed to fetch as is. */
export async function signSigV4(input: SigV4Input): Promise<SigV4SignedRequest> {
  const base = new URL(input.baseUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  const path = `${basePath}${input.path}`;
  // fromEntries, not assignment: a parameter named `__proto__` stays a parameter.
  const query: Record<string, string | string[]> = Object.fromEntries(
    Object.entries(input.query ?? {}).map(([key, value]) => [
      key,
      typeof value === 'string' ? value : [...value],
    ]),
  );
  const request = new HttpRequest({
    method: input.method.toUpperCase(),
    protocol: base.protocol,
    hostname: base.hostname,
    ...(base.port ? { port: Number(base.port) } : {}),
    path,
    query,
    // The host header must be exactly what goes on the wire (with a non-default port).
    headers: { ...input.headers, host: base.host },
    ...(input.body !== undefined ? { body: input.body } : {}),
  });
  const signer = new SignatureV4({
    service: input.service ?? EXECUTE_API_SERVICE,
    region: input.region,
    credentials: input.credentials,
    sha256,
    // API Gateway hashes the payload itself; x-amz-content-sha256 is an S3 convention.
    applyChecksum: false,
  });
  const signed = await signer.sign(request, input.signingDate ? { signingDate: input.signingDate } : {});
  const headers: Record<string, string> = Object.fromEntries(
    Object.entries(signed.headers).filter(([name]) => name.toLowerCase() !== 'host'),
  );
  const queryString = encodeQuery(input.query);
  return {
    method: request.method,
    url: `${base.protocol}//${base.host}${path}${queryString ? `?${queryString}` : ''}`,
    headers,
    ...(input.body !== undefined ? { body: input.body } : {}),
  };
}

let defaultCredentials: AwsCredentialIdentityProvider | undefined;

/** The Lambda role's credentials (default chain, memoized and refreshed by the SDK). Created lazily. */
export function roleCredentials(): AwsCredentialIdentityProvider {
  defaultCredentials ??= defaultProvider();
  return defaultCredentials;
}

/**
 * The environment contract both proxies share (docs/edge-lambdas.md, "Environment"): `proxyEnvironment`
 * writes it (the global stack, the regional proxies construct, the local edge) and `readProxyConfig`
 * reads it, on the first invocation, into a frozen object. Each proxy adds its own variables with the
 * same EnvReader, so every problem is reported together.
 */
import { readFileSync } from 'node:fs';
import { envVariables, type EnvReader } from './reader.js';

type ProxyMode = 'global' | 'regional';

const DEFAULT_BACKEND_PORT = 443;
const DEFAULT_ALB_CACHE_TTL_MS = 300_000;

export interface ProxyConfig {
  readonly mode: ProxyMode;
  /** TLS SNI name and Host header presented to the regional load balancers (`backend.<project>.<domain>`). */
  readonly backendHostname: string;
  /** Port of the accelerator / load balancer listener. */
  readonly backendPort: number;
  /** PEM bundle of the internal CA the load balancer certificate chains to. */
  readonly caPem: string;
  /** Secrets Manager secret `{"current","previous"}` holding the envelope signing keys. */
  readonly signingKeySecretArn: string;
  /** global mode: accelerator DNS name (TCP/443 pass-through to the regional load balancers). */
  readonly acceleratorDns?: string;
  /** regional mode: SSM parameter holding the region's internal load balancer DNS name. */
  readonly albHostParameter?: string;
  /** regional mode: account that must own the load balancer; default from the function ARN. */
  readonly accountId?: string;
  /** regional mode: how long a verified load balancer host is trusted before it is re-checked. */
  readonly albCacheTtlMs: number;
}

/** What a writer sets; a value left out takes the reader's default. */
export type ProxyEnvironment = Omit<ProxyConfig, 'backendPort' | 'albCacheTtlMs'> &
  Partial<Pick<ProxyConfig, 'backendPort' | 'albCacheTtlMs'>>;

/** The proxies' variables for `settings` (values may be CDK tokens). */
export function proxyEnvironment(settings: ProxyEnvironment): Record<string, string> {
  return envVariables({
    MODE: settings.mode,
    BACKEND_HOSTNAME: settings.backendHostname,
    BACKEND_PORT: settings.backendPort,
    INTERNAL_CA_PEM: settings.caPem,
    SIGNING_KEY_SECRET_ARN: settings.signingKeySecretArn,
    ACCELERATOR_DNS: settings.acceleratorDns,
    ALB_HOST_PARAMETER: settings.albHostParameter,
    ACCOUNT_ID: settings.accountId,
    ALB_CACHE_TTL_MS: settings.albCacheTtlMs,
  });
}

const ACCOUNT_RE = /^[0-9]{12}$/;
const SSM_NAME_RE = /^[A-Za-z0-9_./-]{1,2048}$/;
const PEM_CERT_RE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/;

/**
 * The internal CA: INTERNAL_CA_PEM (PEM text; `\n` escapes allowed, since some tools cannot put newlines
 * in an environment variable) or INTERNAL_CA_FILE (a PEM file shipped with the function).
 */
function readCa(r: EnvReader, readFile: (path: string) => string): string | undefined {
  const inline = r.optional('INTERNAL_CA_PEM');
  const file = r.optional('INTERNAL_CA_FILE');
  if (inline !== undefined && file !== undefined) {
    r.problem('INTERNAL_CA_PEM: set only one of INTERNAL_CA_PEM and INTERNAL_CA_FILE');
    return undefined;
  }
  let pem: string;
  if (inline !== undefined) {
    pem = inline.replace(/\\n/g, '\n');
  } else if (file !== undefined) {
    try {
      pem = readFile(file);
    } catch (error) {
      r.problem(`INTERNAL_CA_FILE: cannot read ${JSON.stringify(file)}: ${(error as Error).message}`);
      return undefined;
    }
  } else {
    r.problem('INTERNAL_CA_PEM: required, or INTERNAL_CA_FILE (the internal CA, PEM)');
    return undefined;
  }
  if (!PEM_CERT_RE.test(pem)) {
    r.problem(`${inline !== undefined ? 'INTERNAL_CA_PEM' : 'INTERNAL_CA_FILE'}: holds no PEM certificate`);
    return undefined;
  }
  return pem;
}

/** Reads the variables both proxies share, recording every problem in `r` (the caller finishes it). */
export function readProxyConfig(
  r: EnvReader,
  readFile: (path: string) => string = (p) => readFileSync(p, 'utf8'),
): ProxyConfig {
  const rawMode = r.required('MODE', '"global" or "regional"');
  let mode: ProxyMode = 'global';
  if (rawMode === 'global' || rawMode === 'regional') mode = rawMode;
  else if (rawMode !== undefined) {
    r.problem(`MODE: expected "global" or "regional", got ${JSON.stringify(rawMode)}`);
  }
  const backendHostname = r.hostname('BACKEND_HOSTNAME', 'TLS name of the load balancers');
  const backendPort = r.integer('BACKEND_PORT', DEFAULT_BACKEND_PORT, { min: 1, max: 65535 });
  const caPem = readCa(r, readFile);
  const signingKeySecretArn = r.required('SIGNING_KEY_SECRET_ARN', 'the envelope signing-key secret');
  const albCacheTtlMs = r.integer('ALB_CACHE_TTL_MS', DEFAULT_ALB_CACHE_TTL_MS, {
    min: 1_000,
    max: 3_600_000,
  });

  let acceleratorDns: string | undefined;
  let albHostParameter: string | undefined;
  let accountId: string | undefined;
  if (rawMode === 'global') {
    acceleratorDns = r.hostname('ACCELERATOR_DNS', 'global mode: the accelerator DNS name');
  } else if (rawMode === 'regional') {
    albHostParameter = r.required('ALB_HOST_PARAMETER', 'regional mode: SSM parameter with the ALB host');
    if (albHostParameter !== undefined && !SSM_NAME_RE.test(albHostParameter)) {
      r.problem(
        `ALB_HOST_PARAMETER: expected an SSM parameter name, got ${JSON.stringify(albHostParameter)}`,
      );
    }
    accountId = r.optional('ACCOUNT_ID');
    if (accountId !== undefined && !ACCOUNT_RE.test(accountId)) {
      r.problem(`ACCOUNT_ID: expected 12 digits, got ${JSON.stringify(accountId)}`);
    }
  }

  return Object.freeze({
    mode,
    backendHostname: backendHostname ?? '',
    backendPort,
    caPem: caPem ?? '',
    signingKeySecretArn: signingKeySecretArn ?? '',
    albCacheTtlMs,
    ...(acceleratorDns !== undefined ? { acceleratorDns } : {}),
    ...(albHostParameter !== undefined ? { albHostParameter } : {}),
    ...(accountId !== undefined ? { accountId } : {}),
  });
}

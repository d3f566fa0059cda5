/**
 * Environment configuration shared by the control-plane and inference proxies. Read once per sandbox
 * (first invocation) into a frozen object; every problem is collected and reported together, naming the
 * variable, so one failed deploy shows everything to fix. Values that are secrets never reach the
 * environment (the signing key lives in Secrets Manager), so messages may quote what they found.
 */
import { readFileSync } from 'node:fs';

export type ProxyMode = 'global' | 'regional';

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

export class ConfigError extends Error {
  override readonly name = 'ConfigError';

  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n- ${problems.join('\n- ')}`);
  }
}

// RFC 1123 host name (lower or upper case), or an IPv4 literal for local runs.
const HOSTNAME_RE =
  /^(?=.{1,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const ACCOUNT_RE = /^[0-9]{12}$/;
const SSM_NAME_RE = /^[A-Za-z0-9_./-]{1,2048}$/;
const PEM_CERT_RE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/;

export function isHostname(value: string): boolean {
  return HOSTNAME_RE.test(value);
}

/** Collects problems while reading variables; `finish()` throws them all at once. */
export class EnvReader {
  readonly problems: string[] = [];

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  /** Trimmed value; empty counts as unset. */
  optional(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  }

  required(name: string, what: string): string | undefined {
    const value = this.optional(name);
    if (value === undefined) this.problems.push(`${name} is required (${what})`);
    return value;
  }

  /** Integer within [min, max]; default when unset. */
  integer(name: string, fallback: number, min: number, max: number): number {
    const raw = this.optional(name);
    if (raw === undefined) return fallback;
    const value = /^[0-9]+$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`);
      return fallback;
    }
    return value;
  }

  hostname(name: string, what: string): string | undefined {
    const value = this.required(name, what);
    if (value !== undefined && !isHostname(value)) {
      this.problems.push(`${name} must be a DNS host name, got ${JSON.stringify(value)}`);
      return undefined;
    }
    return value;
  }

  finish(): void {
    if (this.problems.length > 0) throw new ConfigError(this.problems);
  }
}

/**
 * The internal CA: INTERNAL_CA_PEM (PEM text; `\n` escapes allowed, since some tools cannot put newlines
 * in an environment variable) or INTERNAL_CA_FILE (a PEM file shipped with the function).
 */
function readCa(r: EnvReader, readFile: (path: string) => string): string | undefined {
  const inline = r.optional('INTERNAL_CA_PEM');
  const file = r.optional('INTERNAL_CA_FILE');
  if (inline !== undefined && file !== undefined) {
    r.problems.push('set only one of INTERNAL_CA_PEM and INTERNAL_CA_FILE');
    return undefined;
  }
  let pem: string;
  if (inline !== undefined) {
    pem = inline.replace(/\\n/g, '\n');
  } else if (file !== undefined) {
    try {
      pem = readFile(file);
    } catch (error) {
      r.problems.push(`INTERNAL_CA_FILE ${JSON.stringify(file)} cannot be read: ${(error as Error).message}`);
      return undefined;
    }
  } else {
    r.problems.push('INTERNAL_CA_PEM or INTERNAL_CA_FILE is required (the internal CA, PEM)');
    return undefined;
  }
  if (!PEM_CERT_RE.test(pem)) {
    r.problems.push(
      `${inline !== undefined ? 'INTERNAL_CA_PEM' : 'INTERNAL_CA_FILE'} holds no PEM certificate`,
    );
    return undefined;
  }
  return pem;
}

/**
 * Reads the variables both proxies share. Handler-specific variables are read by the handler with the
 * same EnvReader (pass it in) so all problems are reported together.
 */
export function readProxyConfig(
  r: EnvReader,
  readFile: (path: string) => string = (p) => readFileSync(p, 'utf8'),
): ProxyConfig {
  const rawMode = r.required('MODE', '"global" or "regional"');
  let mode: ProxyMode = 'global';
  if (rawMode === 'global' || rawMode === 'regional') mode = rawMode;
  else if (rawMode !== undefined) {
    r.problems.push(`MODE must be "global" or "regional", got ${JSON.stringify(rawMode)}`);
  }
  const backendHostname = r.hostname('BACKEND_HOSTNAME', 'TLS name of the load balancers');
  const backendPort = r.integer('BACKEND_PORT', 443, 1, 65535);
  const caPem = readCa(r, readFile);
  const signingKeySecretArn = r.required('SIGNING_KEY_SECRET_ARN', 'the envelope signing-key secret');
  const albCacheTtlMs = r.integer('ALB_CACHE_TTL_MS', 300_000, 1_000, 3_600_000);

  let acceleratorDns: string | undefined;
  let albHostParameter: string | undefined;
  let accountId: string | undefined;
  if (rawMode === 'global') {
    acceleratorDns = r.hostname('ACCELERATOR_DNS', 'global mode: the accelerator DNS name');
  } else if (rawMode === 'regional') {
    albHostParameter = r.required('ALB_HOST_PARAMETER', 'regional mode: SSM parameter with the ALB host');
    if (albHostParameter !== undefined && !SSM_NAME_RE.test(albHostParameter)) {
      r.problems.push(
        `ALB_HOST_PARAMETER must be an SSM parameter name, got ${JSON.stringify(albHostParameter)}`,
      );
    }
    accountId = r.optional('ACCOUNT_ID');
    if (accountId !== undefined && !ACCOUNT_RE.test(accountId)) {
      r.problems.push(`ACCOUNT_ID must be 12 digits, got ${JSON.stringify(accountId)}`);
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

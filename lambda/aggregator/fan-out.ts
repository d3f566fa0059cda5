/**
 * Calls one route on every regional API in parallel, each call SigV4-signed for its region and bounded
 * by a deadline. Every region yields a RegionResult; nothing here throws, so one bad region can never
 * take the aggregate answer down with it.
 */
import type { RegionResult } from '../../contracts/api/aggregator.js';
import type { RegionalApi, RegionProblem } from '../../contracts/regional-apis.js';
import {
  signSigV4,
  type AwsCredentialIdentity,
  type AwsCredentialIdentityProvider,
  type QueryParameters,
} from '../../contracts/runtime/sigv4.js';

export interface RegionCall {
  method: 'GET' | 'DELETE';
  /** Path below the regional API's stage, e.g. `/api/v1/jobs`. */
  path: string;
  query?: QueryParameters;
  /** JSON text passed through unchanged. */
  body?: string;
}

export interface FanOutOptions {
  /** Milliseconds each region may take (the remaining budget of the request). */
  deadlineMs: number;
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
}

const MAX_ERROR_DETAIL = 200;

function elapsedSince(started: number): number {
  return Math.round(performance.now() - started);
}

/** A short reason from an error body (`{"message":…}` from API Gateway, `{"detail":…}` from services). */
function detailOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as Record<string, unknown>;
  const detail = record.message ?? record.detail;
  return typeof detail === 'string' ? detail.slice(0, MAX_ERROR_DETAIL) : undefined;
}

/** Network failures as an error code only: fetch's messages and causes name the host and port. */
function describeFailure(error: unknown): string {
  // Duck-typed on purpose: fetch's errors may come from another realm, where instanceof Error fails.
  const failure = error as { code?: unknown; cause?: { code?: unknown } } | null;
  const code = typeof failure?.cause?.code === 'string' ? failure.cause.code : failure?.code;
  return typeof code === 'string' ? `request failed: ${code}` : 'request failed';
}

async function exchange(
  api: RegionalApi,
  call: RegionCall,
  options: FanOutOptions,
  signal: AbortSignal,
  started: number,
): Promise<RegionResult> {
  let signed;
  try {
    signed = await signSigV4({
      method: call.method,
      baseUrl: api.url,
      path: call.path,
      ...(call.query ? { query: call.query } : {}),
      headers: {
        accept: 'application/json',
        ...(call.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(call.body !== undefined ? { body: call.body } : {}),
      region: api.region,
      credentials: options.credentials,
    });
  } catch {
    return {
      status: null,
      ok: false,
      body: null,
      error: 'could not sign the request (credentials unavailable)',
      duration_ms: elapsedSince(started),
    };
  }
  const response = await fetch(signed.url, {
    method: signed.method,
    headers: signed.headers,
    ...(signed.body !== undefined ? { body: signed.body } : {}),
    // A redirect would leave the signed host; report it as the region's answer instead.
    redirect: 'manual',
    signal,
  });
  const text = await response.text();
  let body: unknown = null;
  let parseError = false;
  if (text.trim() !== '') {
    try {
      body = JSON.parse(text);
    } catch {
      parseError = true;
    }
  }
  const success = response.status >= 200 && response.status < 300;
  let error: string | null = null;
  if (!success) {
    const detail = detailOf(body);
    error = `HTTP ${response.status}${detail ? `: ${detail}` : ''}`;
  } else if (parseError) {
    error = 'response is not JSON';
  }
  return {
    status: response.status,
    ok: success && !parseError,
    body,
    error,
    duration_ms: elapsedSince(started),
  };
}

/** One region, bounded by `deadlineMs` from now (signing, connecting and reading the body included). */
async function callRegion(api: RegionalApi, call: RegionCall, options: FanOutOptions): Promise<RegionResult> {
  const started = performance.now();
  const deadlineMs = Math.max(0, Math.floor(options.deadlineMs));
  const timedOut = (): RegionResult => ({
    status: null,
    ok: false,
    body: null,
    error: `timeout after ${deadlineMs} ms`,
    duration_ms: elapsedSince(started),
  });
  if (deadlineMs === 0) return timedOut();

  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve('timeout');
    }, deadlineMs);
  });
  const work = exchange(api, call, options, controller.signal, started);
  // The losing side of the race still settles later; keep its rejection from going unhandled.
  work.catch(() => undefined);
  try {
    const outcome = await Promise.race([work, deadline]);
    return outcome === 'timeout' ? timedOut() : outcome;
  } catch (error) {
    if (controller.signal.aborted) return timedOut();
    return {
      status: null,
      ok: false,
      body: null,
      error: describeFailure(error),
      duration_ms: elapsedSince(started),
    };
  } finally {
    clearTimeout(timer);
  }
}

/** Every discovered region called in parallel; regions with a discovery problem are reported as is. */
export async function fanOut(
  apis: readonly RegionalApi[],
  problems: readonly RegionProblem[],
  call: RegionCall,
  options: FanOutOptions,
): Promise<Record<string, RegionResult>> {
  const answered = await Promise.all(
    apis.map(async (api): Promise<[string, RegionResult]> => [
      api.region,
      await callRegion(api, call, options),
    ]),
  );
  const results: Record<string, RegionResult> = {};
  const entries: [string, RegionResult][] = [
    ...answered,
    ...problems.map((p): [string, RegionResult] => [
      p.region,
      { status: null, ok: false, body: null, error: p.error, duration_ms: 0 },
    ]),
  ];
  for (const [region, result] of entries.sort(([a], [b]) => a.localeCompare(b))) {
    results[region] = result;
  }
  return results;
}

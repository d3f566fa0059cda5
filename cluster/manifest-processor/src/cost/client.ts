/**
 * HTTPS client of cost-monitor (docs/cost.md): manifest-processor reaches it at
 * COST_MONITOR_URL (port 8443) and verifies its certificate against the cluster internal CA — only that
 * CA, never the public roots. Failures are typed so the routes can answer 502 (unreachable, TLS failure,
 * malformed answer) or 504 (no answer within the deadline).
 */
import { PlatformError } from '../../../../contracts/runtime/errors.js';
import { readFileSync } from 'node:fs';
import { Agent, request as httpsRequest } from 'node:https';
import { readContract, variablesOf, type EnvSource } from '../../../shared/env-source.js';

export interface CostMonitorClientOptions {
  /** Base URL, e.g. https://cost-monitor.gco-system.svc.cluster.local:8443 (https only). */
  baseUrl: string;
  /** PEM CA bundle the cost-monitor certificate must chain to. */
  ca: string | Buffer;
  /** Deadline of one call, connection to last byte; under the edge proxy's 28 s so we answer 504 first. */
  timeoutMs?: number;
  /** Name to verify in the certificate when it differs from the URL host. */
  servername?: string;
  /** Largest accepted response body. */
  maxResponseBytes?: number;
}

export interface CostMonitorReply {
  status: number;
  body: unknown;
}

export class CostMonitorError extends PlatformError {
  override readonly name = 'CostMonitorError';
  constructor(
    message: string,
    readonly kind: 'unreachable' | 'timeout' | 'invalid_response',
    options?: { cause: unknown },
  ) {
    super(message, options);
  }
}

const DEFAULT_TIMEOUT_MS = 25_000;
const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/** How manifest-processor reaches cost-monitor: its environment contract, read and written here. */
export interface CostMonitorClientSettings {
  baseUrl: string;
  /** PEM bundle of the cluster internal CA (a mounted file). */
  caFile: string;
  timeoutMs: number;
  servername?: string;
}

const VARIABLES = {
  baseUrl: 'COST_MONITOR_URL',
  caFile: 'COST_MONITOR_CA_FILE',
  timeoutMs: 'COST_MONITOR_TIMEOUT_MS',
  servername: 'COST_MONITOR_SERVERNAME',
} as const satisfies Record<keyof CostMonitorClientSettings, string>;

export function loadCostMonitorClientSettings(env: EnvSource = process.env): CostMonitorClientSettings {
  return readContract(env, (read) => {
    const servername = read.optional(VARIABLES.servername);
    return {
      baseUrl: read.string(VARIABLES.baseUrl, 'https://cost-monitor:8443'),
      caFile: read.required(VARIABLES.caFile, 'PEM bundle of the cluster internal CA') ?? '',
      timeoutMs: read.integer(VARIABLES.timeoutMs, DEFAULT_TIMEOUT_MS, { min: 100, max: 120_000 }),
      ...(servername ? { servername } : {}),
    };
  });
}

export function costMonitorClientEnvironment(
  settings: Partial<CostMonitorClientSettings>,
): Record<string, string> {
  return variablesOf(VARIABLES, settings);
}

export class CostMonitorClient {
  private readonly base: URL;
  private readonly agent: Agent;
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;

  constructor(private readonly opts: CostMonitorClientOptions) {
    this.base = new URL(opts.baseUrl);
    if (this.base.protocol !== 'https:') {
      throw new Error(`cost-monitor URL must be https (its certificate is verified), got ${opts.baseUrl}`);
    }
    if (!opts.ca || String(opts.ca).trim() === '') throw new Error('cost-monitor CA bundle is empty');
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxResponseBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    // Keep-alive pool; `ca` replaces the default roots, so only the internal CA is trusted.
    this.agent = new Agent({ keepAlive: true, maxSockets: 32, ca: opts.ca, rejectUnauthorized: true });
  }

  /** The client the environment contract describes; the CA bundle is read from its file. */
  static fromSettings({ caFile, ...settings }: CostMonitorClientSettings): CostMonitorClient {
    return new CostMonitorClient({ ...settings, ca: readFileSync(caFile) });
  }

  listReports(query: { adhoc: boolean; limit: number }, requestId?: string): Promise<CostMonitorReply> {
    const qs = new URLSearchParams({ adhoc: String(query.adhoc), limit: String(query.limit) });
    return this.request('GET', `/internal/reports?${qs.toString()}`, undefined, requestId);
  }

  generateReport(
    body: { include_rows: boolean; window_hours: number },
    requestId?: string,
  ): Promise<CostMonitorReply> {
    return this.request('POST', '/internal/reports', body, requestId);
  }

  status(requestId?: string): Promise<CostMonitorReply> {
    return this.request('GET', '/internal/status', undefined, requestId);
  }

  /** One JSON call. Resolves with any HTTP status; rejects only with CostMonitorError. */
  request(method: string, path: string, body?: unknown, requestId?: string): Promise<CostMonitorReply> {
    const url = new URL(path, this.base);
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body), 'utf8');
    const headers: Record<string, string> = { accept: 'application/json' };
    if (payload) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(payload.length);
    }
    if (requestId) headers['x-request-id'] = requestId;

    return new Promise<CostMonitorReply>((resolve, reject) => {
      let settled = false;
      const fail = (error: CostMonitorError) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        req.destroy();
        reject(error);
      };
      const req = httpsRequest(url, {
        method,
        headers,
        agent: this.agent,
        ...(this.opts.servername ? { servername: this.opts.servername } : {}),
      });
      const deadline = setTimeout(
        () =>
          fail(new CostMonitorError(`cost-monitor did not answer within ${this.timeoutMs} ms`, 'timeout')),
        this.timeoutMs,
      );
      req.on('error', (error) =>
        fail(
          new CostMonitorError(`cost-monitor unreachable: ${error.message}`, 'unreachable', { cause: error }),
        ),
      );
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > this.maxResponseBytes) {
            fail(new CostMonitorError('cost-monitor answer too large', 'invalid_response'));
            return;
          }
          chunks.push(chunk);
        });
        res.on('error', (error) =>
          fail(new CostMonitorError(`cost-monitor answer interrupted: ${error.message}`, 'unreachable')),
        );
        res.on('end', () => {
          if (settled) return;
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = text === '' ? undefined : (JSON.parse(text) as unknown);
          } catch {
            fail(
              new CostMonitorError(
                `cost-monitor answered HTTP ${res.statusCode} without JSON`,
                'invalid_response',
              ),
            );
            return;
          }
          settled = true;
          clearTimeout(deadline);
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      });
      req.end(payload);
    });
  }

  /** Closes pooled connections (the routes call it when the app closes). */
  close(): void {
    this.agent.destroy();
  }
}

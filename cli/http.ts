/**
 * Requests to the platform's APIs: SigV4-signed (service `execute-api`, region of the API called) with
 * the project's signer (contracts/runtime/sigv4.ts), or with an analytics API key in `Authorization`.
 * Buffered answers for ordinary calls, a live stream for inference; retries per retry.ts.
 */
import {
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AwsCredentialIdentityProvider } from './credentials.js';
import type { ApiTarget } from './endpoints.js';
import { ApiError, CliError } from './errors.js';
import {
  DEFAULT_RETRY_POLICY,
  RETRYABLE_STATUSES,
  backoffMs,
  isRetryableNetworkError,
  retryAfterMs,
  type RetryPolicy,
} from './retry.js';

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

type QueryValues = Record<string, string | number | boolean | readonly string[] | undefined>;

export interface ApiRequest {
  method: HttpMethod;
  /** Below the API's base URL, starting with `/`; segments already encoded (see `pathOf`). */
  path: string;
  /** Undefined values are left out. */
  query?: QueryValues;
  /** A string is sent as is; anything else as JSON (so, as in `query`, undefined fields are left out). */
  body?: unknown;
  headers?: Record<string, string>;
  /**
   * The request may be sent again after a retryable failure. Always true for GET and HEAD; a write
   * only when it carries an idempotency key (or is idempotent by contract).
   */
  idempotent?: boolean;
}

export interface ApiReply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  /** The body parsed as JSON, or undefined when it is empty or not JSON. */
  readonly json: unknown;
  readonly target: ApiTarget;
  readonly method: HttpMethod;
  readonly path: string;
}

export interface StreamingReply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** The body as it arrives. */
  readonly body: IncomingMessage;
}

export type Authorization =
  | { readonly kind: 'sigv4'; readonly credentials: AwsCredentialIdentityProvider }
  | { readonly kind: 'api-key'; readonly key: string };

export interface HttpSettings {
  /** Per attempt: the whole answer for buffered calls, the status line and headers for streams. */
  readonly timeoutMs: number;
  readonly retry?: RetryPolicy;
  /** `--verbose`: one line per request and answer. */
  readonly log?: (line: string) => void;
  readonly userAgent: string;
}

/** `/a/b c/d` from raw segments, each percent-encoded once. */
export function pathOf(...segments: string[]): string {
  return segments.map((s) => `/${encodeURIComponent(s)}`).join('');
}

const isSafeMethod = (method: HttpMethod) => method === 'GET' || method === 'HEAD';

function queryOf(values: QueryValues | undefined): Record<string, string | string[]> | undefined {
  if (values === undefined) return undefined;
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) continue;
    out[key] = typeof value === 'object' ? [...value] : String(value);
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The text parsed as JSON, or undefined when it is empty or not JSON. */
export function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

class TimeoutError extends Error {
  readonly code = 'ETIMEDOUT';
}

/** One keep-alive agent per scheme for the whole run; `close()` lets the process exit at once. */
export class Transport {
  private readonly http = new HttpAgent({ keepAlive: true });
  private readonly https = new HttpsAgent({ keepAlive: true });

  agentFor(url: URL): HttpAgent | HttpsAgent {
    return url.protocol === 'https:' ? this.https : this.http;
  }

  close(): void {
    this.http.destroy();
    this.https.destroy();
  }
}

export class ApiClient {
  private readonly retry: RetryPolicy;

  constructor(
    readonly target: ApiTarget,
    private readonly auth: Authorization,
    private readonly transport: Transport,
    private readonly settings: HttpSettings,
  ) {
    this.retry = settings.retry ?? DEFAULT_RETRY_POLICY;
  }

  /** Sends the request (again, when it may be repeated and the failure is retryable); any status resolves. */
  async send(req: ApiRequest): Promise<ApiReply> {
    const repeatable = isSafeMethod(req.method) || req.idempotent === true;
    for (let attempt = 1; ; attempt++) {
      let waitMs: number;
      try {
        const reply = await this.once(req);
        if (!repeatable || !RETRYABLE_STATUSES.has(reply.status) || attempt >= this.retry.maxAttempts) {
          return reply;
        }
        waitMs = retryAfterMs(reply.headers['retry-after'], this.retry) ?? backoffMs(attempt, this.retry);
        this.settings.log?.(`  HTTP ${reply.status}: attempt ${attempt + 1} in ${waitMs} ms`);
      } catch (error) {
        if (!repeatable || !isRetryableNetworkError(error) || attempt >= this.retry.maxAttempts) {
          throw this.networkError(error);
        }
        waitMs = backoffMs(attempt, this.retry);
        this.settings.log?.(`  ${(error as Error).message}: attempt ${attempt + 1} in ${waitMs} ms`);
      }
      await sleep(waitMs);
    }
  }

  /** Sends once and resolves when the status line and headers arrive; the body streams (no retries). */
  async stream(req: ApiRequest): Promise<StreamingReply> {
    try {
      const res = await this.exchange(req, false);
      return { status: res.statusCode ?? 0, headers: res.headers, body: res };
    } catch (error) {
      throw this.networkError(error);
    }
  }

  private async once(req: ApiRequest): Promise<ApiReply> {
    const res = await this.exchange(req, true);
    const chunks: Buffer[] = [];
    for await (const chunk of res as AsyncIterable<Buffer>) chunks.push(chunk);
    const text = Buffer.concat(chunks).toString('utf8');
    let parsed: { value: unknown } | undefined;
    return {
      status: res.statusCode ?? 0,
      headers: res.headers,
      text,
      get json() {
        parsed ??= { value: parseJson(text) };
        return parsed.value;
      },
      target: this.target,
      method: req.method,
      path: req.path,
    };
  }

  /** Signs and sends; `wholeAnswer` keeps the timeout running until the body has been read. */
  private async exchange(req: ApiRequest, wholeAnswer: boolean): Promise<IncomingMessage> {
    const body =
      req.body === undefined ? undefined : typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.settings.userAgent,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...req.headers,
    };
    const { url, signedHeaders } = await this.sign(req, headers, body);
    const started = Date.now();
    this.settings.log?.(`> ${req.method} ${url}`);
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<IncomingMessage>((resolve, reject) => {
      const request = send(target, {
        method: req.method,
        headers: {
          ...signedHeaders,
          ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}),
        },
        agent: this.transport.agentFor(target),
      });
      const timer = setTimeout(
        () => request.destroy(new TimeoutError(`no answer within ${this.settings.timeoutMs} ms`)),
        this.settings.timeoutMs,
      );
      request.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      request.on('response', (res) => {
        this.settings.log?.(
          `< ${res.statusCode ?? 0} ${req.method} ${req.path} (${Date.now() - started} ms)`,
        );
        if (!wholeAnswer) clearTimeout(timer);
        else res.once('end', () => clearTimeout(timer)).once('close', () => clearTimeout(timer));
        resolve(res);
      });
      request.end(body);
    });
  }

  private async sign(
    req: ApiRequest,
    headers: Record<string, string>,
    body: string | undefined,
  ): Promise<{ url: string; signedHeaders: Record<string, string> }> {
    // Loaded on first use: --help, --version and completion start without the SDK.
    const { encodeQuery, signSigV4 } = await import('../contracts/runtime/sigv4.js');
    const query = queryOf(req.query);
    if (this.auth.kind === 'api-key') {
      const qs = encodeQuery(query);
      return {
        url: `${this.target.url}${req.path}${qs ? `?${qs}` : ''}`,
        signedHeaders: { ...headers, authorization: this.auth.key },
      };
    }
    const signed = await signSigV4({
      method: req.method,
      baseUrl: this.target.url,
      path: req.path,
      ...(query ? { query } : {}),
      headers,
      ...(body !== undefined ? { body } : {}),
      region: this.target.region,
      credentials: this.auth.credentials,
    });
    return { url: signed.url, signedHeaders: signed.headers };
  }

  private networkError(error: unknown): Error {
    if (error instanceof CliError) return error; // e.g. no credentials: already says what to do
    if (!(error instanceof Error)) return new ApiError(String(error));
    const code = (error as NodeJS.ErrnoException).code;
    return new ApiError(
      `Could not reach the ${this.target.kind} API at ${this.target.url}: ${code ?? error.message}`,
      code === 'ECONNREFUSED' && /^http:\/\/(127\.|localhost)/.test(this.target.url)
        ? 'Is the local platform (npm start) still running?'
        : undefined,
    );
  }
}

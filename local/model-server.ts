/**
 * A small model server for the local platform: HTTPS with a certificate from the internal CA (the
 * inference-proxy trusts nothing else), an OpenAI-style completions API that generates deterministic
 * tokens one at a time and streams them as server-sent events the moment each is produced.
 *
 *   GET  /health            {"status":"ok"}
 *   GET  /v1/models         the one model (also /v1/models/<model>)
 *   POST /v1/completions    {"prompt": "...", "max_tokens": 16, "stream": true}
 *
 * HEAD answers every GET route with the GET's status and headers and no body, as HTTP servers do, so
 * the spec's HEAD inference operations have something to reach. A known path with another method is
 * 405 with `Allow`.
 *
 * `pace(index)` decides when token `index` is produced (default: `tokenDelayMs` after the previous
 * one); tests replace it to hold a token back until the client has seen the earlier ones.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { IssuedCertificate } from './tls.js';

export const MODEL_SERVING_PATHS: readonly string[] = ['/v1/completions', '/v1/models/*'];
export const MODEL_HEALTH_PATH = '/health';
const DEFAULT_TOKEN_DELAY_MS = 50;
const MAX_TOKENS = 512;

export interface ModelServerOptions {
  certificate: IssuedCertificate;
  model?: string;
  tokenDelayMs?: number;
  /** Resolves when token `index` (0-based) may be produced; `signal` aborts when the client goes away. */
  pace?: (index: number, signal: AbortSignal) => Promise<void>;
  host?: string;
}

export interface ModelServer {
  readonly port: number;
  readonly url: string;
  readonly model: string;
  /**
   * Stops accepting connections; requests in flight may finish for `graceMs` (default 0: cut at once),
   * as a pod's containers get terminationGracePeriodSeconds after SIGTERM.
   */
  close(graceMs?: number): Promise<void>;
}

const WORDS = [
  'The',
  'quick',
  'brown',
  'fox',
  'jumps',
  'over',
  'the',
  'lazy',
  'dog',
  'while',
  'tokens',
  'stream',
  'in',
  'order',
];

/** Token `i` for a prompt: deterministic, so a test can predict every token of a completion. */
export function tokenFor(prompt: string, i: number): string {
  const offset = [...prompt].reduce((sum, ch) => sum + (ch.codePointAt(0) ?? 0), 0);
  return `${i === 0 ? '' : ' '}${WORDS[(offset + i) % WORDS.length] ?? 'token'}`;
}

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  // For HEAD, Node sends the headers (Content-Length included) and drops the body.
  res.end(text);
}

function methodNotAllowed(res: ServerResponse, allow: string): void {
  json(
    res,
    405,
    { error: { message: `method not allowed (allowed: ${allow})`, type: 'method_not_allowed' } },
    { allow },
  );
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

export async function startModelServer(opts: ModelServerOptions): Promise<ModelServer> {
  const model = opts.model ?? 'local-sample-model';
  const delay = opts.tokenDelayMs ?? DEFAULT_TOKEN_DELAY_MS;
  const pace =
    opts.pace ??
    ((index: number, signal: AbortSignal) =>
      index === 0 ? Promise.resolve() : sleep(delay, undefined, { signal }));
  let created = 0;

  async function complete(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJson(req);
    const prompt = body?.prompt;
    const maxTokens = body?.max_tokens ?? 16;
    if (
      typeof prompt !== 'string' ||
      typeof maxTokens !== 'number' ||
      !Number.isInteger(maxTokens) ||
      maxTokens < 1 ||
      maxTokens > MAX_TOKENS
    ) {
      return json(res, 400, {
        error: {
          message: `prompt (string) and max_tokens (1-${MAX_TOKENS}) are required`,
          type: 'invalid_request_error',
        },
      });
    }
    const id = `cmpl-local-${++created}`;
    const abort = new AbortController();
    res.once('close', () => abort.abort());
    const tokens: string[] = [];
    if (body?.stream !== true) {
      for (let i = 0; i < maxTokens; i++) {
        await pace(i, abort.signal);
        tokens.push(tokenFor(prompt, i));
      }
      return json(res, 200, {
        id,
        object: 'text_completion',
        model,
        choices: [{ index: 0, text: tokens.join(''), finish_reason: 'length' }],
      });
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    try {
      for (let i = 0; i < maxTokens; i++) {
        await pace(i, abort.signal);
        const last = i === maxTokens - 1;
        const event = {
          id,
          object: 'text_completion',
          model,
          choices: [{ index: 0, text: tokenFor(prompt, i), finish_reason: last ? 'length' : null }],
        };
        res.write(`data: ${JSON.stringify(event)}\n\n`);
      }
      res.end('data: [DONE]\n\n');
    } catch {
      // The client went away mid-stream: stop generating.
      res.destroy();
    }
  }

  const server: Server = createServer(
    { key: opts.certificate.key, cert: opts.certificate.cert },
    (req, res) => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const method = req.method ?? 'GET';
      const read = method === 'GET' || method === 'HEAD';
      if (path === '/health' || path === '/v1/models' || path === `/v1/models/${model}`) {
        if (!read) return methodNotAllowed(res, 'GET, HEAD');
        if (path === '/health') return json(res, 200, { status: 'ok' });
        const card = { id: model, object: 'model', owned_by: 'gco-platform-local' };
        return json(res, 200, path === '/v1/models' ? { object: 'list', data: [card] } : card);
      }
      if (path === '/v1/completions') {
        if (method !== 'POST') return methodNotAllowed(res, 'POST');
        complete(req, res).catch(() => res.destroy());
        return;
      }
      json(res, 404, { error: { message: 'no such route', type: 'not_found' } });
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `https://${opts.host ?? '127.0.0.1'}:${port}`,
    model,
    close: (graceMs = 0) => closeGracefully(server, graceMs),
  };
}

/** Stops listening, closes idle keep-alive connections, and cuts the rest after `graceMs`. */
export function closeGracefully(server: Server, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    if (graceMs <= 0) server.closeAllConnections();
    else setTimeout(() => server.closeAllConnections(), graceMs).unref();
  });
}

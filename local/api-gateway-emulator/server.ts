/**
 * One REST API stage on 127.0.0.1, served from its ApiDefinition: `http://127.0.0.1:<port>/<stage>/…`.
 * Per request: WAF (the global API's platform rules, 403) → stage → resource/method (RouteTable) → stage
 * throttle (429) → authorization (SigV4 for `iam`, the REQUEST authorizer for `analytics-api-key`,
 * nothing for `none`) → integration (mock, buffered Lambda with the integration timeout, or streaming
 * Lambda piped through as it writes). Errors are API Gateway's gateway responses. Limits versus the real
 * service: docs/local-platform.md.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream';
import type { ApiDefinition, RouteAuth, RouteHandler } from '../../contracts/api-routes.js';
import {
  apiGatewayListenerDeadlines,
  applyListenerDeadlines,
  type ListenerDeadlines,
} from '../../contracts/http/listener-deadlines.js';
import { partitionOf } from '../../contracts/partition.js';
import { verifySigV4, type CredentialStore } from '../sigv4-verifier.js';
import { identitySourceValues, RequestAuthorizer, type RequestAuthorizerOptions } from './authorizer.js';
import {
  authorizerEvent,
  proxyEvent,
  withGatewayHeaders,
  type ApiStageInfo,
  type IncomingApiRequest,
  type RequestInfo,
} from './event.js';
import { invokeBuffered, invokeStreaming, type LambdaBinding } from './invoke.js';
import { lambdaContext } from './lambda-context.js';
import {
  fromPrelude,
  fromProxyResult,
  gatewayError,
  integrationTimeout,
  internalServerError,
  MESSAGES,
  type HttpAnswer,
} from './responses.js';
import {
  methodArnRefusal,
  PARSER_MAX_HEAD_BYTES,
  parserRefusal,
  requestSizeRefusal,
} from './request-limits.js';
import { RouteTable } from './routes.js';
import { StageThrottle } from './throttle.js';
import { LocalWaf, type LocalWafOptions, type WafRule } from './waf.js';

/** API Gateway's request payload limit. */
const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;
/** Lambda's synchronous response payload limit. */
const MAX_LAMBDA_RESPONSE_BYTES = 6 * 1024 * 1024;
/** How long the rest of an unparsable request is drained before its connection is closed anyway. */
const LINGER_MS = 5_000;

type AuthorizerAuth = Exclude<RouteAuth, 'iam' | 'none'>;

export interface AccessLogEntry {
  requestId: string;
  sourceIp: string;
  httpMethod: string;
  path: string;
  resourcePath: string | null;
  status: number;
  errorType: string | null;
  principal: string | null;
  latencyMs: number;
  /** The WAF rule that blocked the request, if one did. */
  wafRule?: WafRule;
}

export interface ApiGatewayEmulatorOptions {
  api: ApiDefinition;
  region: string;
  accountId: string;
  /** SigV4 credentials accepted on `iam` routes. */
  credentials: CredentialStore;
  /** The function behind every Lambda route of the definition. */
  lambdas: Partial<Record<RouteHandler, LambdaBinding>>;
  /** Lambda authorizers for non-IAM auth types the definition uses. */
  authorizers?: Partial<Record<AuthorizerAuth, Omit<RequestAuthorizerOptions, 'now'>>>;
  /** Physical function name for the Lambda context (default `<handler>`). */
  functionName?: (handler: RouteHandler) => string;
  /** The API's binaryMediaTypes (the stacks set none). */
  binaryMediaTypes?: readonly string[];
  apiId?: string;
  host?: string;
  port?: number;
  now?: () => number;
  onAccessLog?: (entry: AccessLogEntry) => void;
  /** The web ACL's platform rules in front of the stage (the global API when `waf.enabled`). */
  waf?: LocalWafOptions['waf'];
  /** Listener deadlines; apiGatewayListenerDeadlines(endpoint type) by default (docs/timeouts.md). */
  deadlines?: Partial<ListenerDeadlines>;
}

export interface ApiGatewayEmulator {
  /** Base URL with the stage, e.g. `http://127.0.0.1:4010/prod` (no trailing slash). */
  readonly url: string;
  readonly apiId: string;
  readonly port: number;
  readonly region: string;
  close(): Promise<void>;
}

const API_ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

function randomApiId(): string {
  return [...randomBytes(10)].map((b) => API_ID_ALPHABET[b % API_ID_ALPHABET.length]).join('');
}

class PayloadTooLarge extends Error {}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_PAYLOAD_BYTES) throw new PayloadTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function headerOf(rawHeaders: readonly string[], name: string): string | undefined {
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if ((rawHeaders[i] ?? '').toLowerCase() === name) return rawHeaders[i + 1];
  }
  return undefined;
}

/** Fails at startup, as `cdk synth` would, when a route has no function or authorizer to run. */
function checkBindings(opts: ApiGatewayEmulatorOptions): void {
  for (const route of opts.api.routes) {
    if (route.auth === 'cognito' || route.auth === 'analytics-api-key') {
      if (!opts.authorizers?.[route.auth]) {
        throw new Error(`${opts.api.id} API: ${route.method} ${route.path} needs a ${route.auth} authorizer`);
      }
    }
    if (route.integration.type !== 'lambda') continue;
    const binding = opts.lambdas[route.integration.handler];
    if (!binding) throw new Error(`${opts.api.id} API: no function for handler ${route.integration.handler}`);
    if ((binding.kind === 'streaming') !== route.integration.streaming) {
      throw new Error(
        `${opts.api.id} API: ${route.integration.handler} must be a ${route.integration.streaming ? 'streaming' : 'buffered'} function`,
      );
    }
  }
}

export async function startApiGatewayEmulator(opts: ApiGatewayEmulatorOptions): Promise<ApiGatewayEmulator> {
  checkBindings(opts);
  const routes = new RouteTable(opts.api);
  const apiId = opts.apiId ?? randomApiId();
  const now = opts.now ?? Date.now;
  const partition = partitionOf(opts.region);
  const stage: ApiStageInfo = {
    apiId,
    stage: opts.api.stage,
    accountId: opts.accountId,
    domainName: `${apiId}.execute-api.${opts.region}.${partition.dnsSuffix}`,
  };
  const binaryMediaTypes = opts.binaryMediaTypes ?? [];
  const authorizers = new Map<AuthorizerAuth, RequestAuthorizer>();
  for (const [auth, options] of Object.entries(opts.authorizers ?? {}) as [
    AuthorizerAuth,
    RequestAuthorizerOptions,
  ][]) {
    authorizers.set(auth, new RequestAuthorizer({ ...options, now }));
  }
  const functionName = opts.functionName ?? ((handler: RouteHandler) => handler);
  const throttle = new StageThrottle(opts.api.throttling, now);
  const waf = opts.waf ? new LocalWaf({ waf: opts.waf, stage: opts.api.stage, now }) : undefined;
  const stagePrefix = `/${opts.api.stage}`;
  let port = 0;

  const send = (res: ServerResponse, requestId: string, answer: HttpAnswer): void => {
    const headers: string[] = [];
    for (const [name, value] of answer.headers) headers.push(name, value);
    headers.push('x-amzn-RequestId', requestId, 'x-amz-apigw-id', randomBytes(6).toString('base64'));
    headers.push('Content-Length', String(answer.body.length));
    res.writeHead(answer.statusCode, headers);
    res.end(answer.body);
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = now();
    const requestId = randomUUID();
    const method = (req.method ?? 'GET').toUpperCase();
    const target = req.url ?? '/';
    const q = target.indexOf('?');
    const fullPath = q === -1 ? target : target.slice(0, q);
    const sourceIp = (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
    const log: AccessLogEntry = {
      requestId,
      sourceIp,
      httpMethod: method,
      path: fullPath,
      resourcePath: null,
      status: 0,
      errorType: null,
      principal: null,
      latencyMs: 0,
    };
    const finish = (answer: HttpAnswer) => {
      log.status = answer.statusCode;
      log.errorType = answer.headers.find(([n]) => n === 'x-amzn-ErrorType')?.[1] ?? null;
      send(res, requestId, answer);
    };
    res.once('close', () => {
      log.latencyMs = now() - started;
      opts.onAccessLog?.(log);
    });

    // The size quotas come first: nothing of an over-long request is read or routed.
    const tooBig = requestSizeRefusal(opts.api.endpointType, {
      method,
      target,
      rawHeaders: req.rawHeaders,
      domainName: stage.domainName,
    });
    if (tooBig !== undefined) return finish(tooBig);

    let body: Buffer;
    try {
      body = await readBody(req);
    } catch (error) {
      if (error instanceof PayloadTooLarge) {
        finish(gatewayError(413, 'RequestTooLargeException', MESSAGES.tooLarge));
        // The rest of the upload is not read.
        res.once('finish', () => req.destroy());
      } else {
        req.destroy();
      }
      return;
    }

    const blockedBy = waf?.inspect(sourceIp, fullPath, body.length);
    if (blockedBy !== undefined) {
      log.wafRule = blockedBy;
      return finish(gatewayError(403, 'ForbiddenException', MESSAGES.forbidden));
    }
    if (fullPath !== stagePrefix && !fullPath.startsWith(`${stagePrefix}/`)) {
      return finish(gatewayError(403, 'ForbiddenException', MESSAGES.forbidden));
    }
    const path = fullPath === stagePrefix ? '/' : fullPath.slice(stagePrefix.length);
    const request: IncomingApiRequest = {
      method,
      path,
      rawQuery: q === -1 ? '' : target.slice(q + 1),
      rawHeaders: req.rawHeaders,
      body,
      sourceIp,
    };
    const match = routes.match(method, path);
    if (match.kind === 'missing') {
      log.resourcePath = match.resourcePath ?? null;
      return finish(gatewayError(403, 'MissingAuthenticationTokenException', 'Missing Authentication Token'));
    }
    const route = match.route;
    log.resourcePath = match.resourcePath;
    const methodArn = `arn:${partition.partition}:execute-api:${opts.region}:${opts.accountId}:${apiId}/${opts.api.stage}/${method}${path}`;
    const arnTooLong = route.auth === 'none' ? undefined : methodArnRefusal(methodArn);
    if (arnTooLong !== undefined) return finish(arnTooLong);
    if (!throttle.take()) {
      return finish(gatewayError(429, 'TooManyRequestsException', MESSAGES.tooManyRequests));
    }
    const info: RequestInfo = {
      requestId,
      extendedRequestId: randomBytes(6).toString('base64'),
      resourceId: match.resourcePath,
      resourcePath: match.resourcePath,
      pathParameters: match.pathParameters,
      requestTime: new Date(started),
      caller: undefined,
    };

    let authorizerContext: Record<string, unknown> | undefined;
    if (route.auth === 'iam') {
      const verdict = await verifySigV4(
        { method, target, rawHeaders: req.rawHeaders, body },
        {
          service: 'execute-api',
          region: opts.region,
          credentials: opts.credentials,
          now: () => new Date(now()),
        },
      );
      if (!verdict.ok) return finish(gatewayError(403, verdict.errorType, verdict.message));
      info.caller = verdict.credential;
      log.principal = verdict.credential.principal.arn;
    } else if (route.auth !== 'none') {
      const authorizer = authorizers.get(route.auth);
      if (authorizer === undefined) return finish(internalServerError());
      const authStarted = now();
      const decision = await authorizer.authorize(
        identitySourceValues(req.rawHeaders, authorizer.identityHeader),
        methodArn,
        (handler) =>
          handler(
            authorizerEvent(request, req.rawHeaders, stage, info, methodArn),
            lambdaContext(
              {
                name: authorizer.functionName,
                region: opts.region,
                accountId: opts.accountId,
                timeoutMs: authorizer.timeoutMs,
              },
              now,
            ),
          ),
      );
      if (decision.kind === 'refuse') return finish(decision.answer);
      authorizerContext = { ...decision.context, integrationLatency: now() - authStarted };
      log.principal = typeof decision.context.principalId === 'string' ? decision.context.principalId : null;
    }

    if (route.integration.type === 'mock') {
      return finish({
        statusCode: route.integration.statusCode,
        headers: [['Content-Type', 'application/json']],
        body: Buffer.alloc(0),
      });
    }
    await integrate(
      route.integration.handler,
      route.integration.timeoutSeconds * 1000,
      request,
      info,
      authorizerContext,
      res,
      finish,
    );
  }

  async function integrate(
    handlerName: RouteHandler,
    timeoutMs: number,
    request: IncomingApiRequest,
    info: RequestInfo,
    authorizer: Record<string, unknown> | undefined,
    res: ServerResponse,
    finish: (answer: HttpAnswer) => void,
  ): Promise<void> {
    const binding = opts.lambdas[handlerName];
    if (binding === undefined) return finish(internalServerError());
    const traceId = `Root=1-${Math.floor(now() / 1000).toString(16)}-${randomBytes(12).toString('hex')}`;
    const event = proxyEvent(request, withGatewayHeaders(request, traceId, port), stage, info, {
      binaryMediaTypes,
      ...(authorizer !== undefined ? { authorizer } : {}),
    });
    const context = lambdaContext(
      { name: functionName(handlerName), region: opts.region, accountId: opts.accountId, timeoutMs },
      now,
    );

    if (binding.kind === 'buffered') {
      const outcome = await invokeBuffered(binding.handler, event, context, timeoutMs);
      if (outcome.kind === 'timeout') return finish(integrationTimeout());
      if (outcome.kind === 'error') return finish(internalServerError());
      const size = Buffer.byteLength(JSON.stringify(outcome.value ?? null));
      const answer =
        size > MAX_LAMBDA_RESPONSE_BYTES
          ? undefined
          : fromProxyResult(outcome.value, headerOf(request.rawHeaders, 'accept'), binaryMediaTypes);
      return finish(answer ?? internalServerError());
    }

    const outcome = await invokeStreaming(binding.handler, event, context, timeoutMs);
    if (outcome.kind === 'timeout') return finish(integrationTimeout());
    const head = outcome.kind === 'stream' ? fromPrelude(outcome.prelude) : undefined;
    if (outcome.kind !== 'stream' || head === undefined) {
      if (outcome.kind === 'stream') {
        outcome.release();
        outcome.body.destroy();
      }
      return finish(internalServerError());
    }
    const headers: string[] = [];
    for (const [name, value] of head.headers) headers.push(name, value);
    headers.push('x-amzn-RequestId', info.requestId, 'X-Amzn-Trace-Id', traceId);
    res.writeHead(head.statusCode, headers);
    // Status and headers go out now; body chunks follow as the function writes them.
    res.flushHeaders();
    pipeline(outcome.body, res, () => outcome.release());
  }

  const server = createServer({ maxHeaderSize: PARSER_MAX_HEAD_BYTES }, (req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) send(res, randomUUID(), internalServerError());
      else res.destroy();
    });
  });
  applyListenerDeadlines(server, {
    ...apiGatewayListenerDeadlines(opts.api.endpointType),
    ...opts.deadlines,
  });
  // A request Node cannot parse (a head over PARSER_MAX_HEAD_BYTES, bytes that are not HTTP) still gets
  // a JSON answer. The rest of the upload is read and dropped before the socket closes: closing with
  // unread bytes would make the kernel reset the connection, and the client could lose the answer.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    socket.end(parserRefusal(error.code));
    socket.resume();
    socket.once('end', () => socket.destroy());
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const host = opts.host ?? '127.0.0.1';

  return {
    url: `http://${host}:${port}${stagePrefix}`,
    apiId,
    port,
    region: opts.region,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The service framework every cluster service is built on: one call gives a Fastify app with envelope
 * verification, FastAPI-compatible errors, request ids, JSON logs, Prometheus metrics, probes, a 1 MiB
 * body limit and an OpenAPI 3.1 document. A service only adds its routes.
 */
import { randomUUID } from 'node:crypto';
import {
  createServer as createHttpServer,
  STATUS_CODES,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { Socket } from 'node:net';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  type RouteOptions,
} from 'fastify';
import type { Logger } from 'pino';
import type { EnvelopeVerifier } from '../../contracts/envelope/envelope.js';
import {
  applyListenerDeadlines,
  SERVICE_LISTENER_DEADLINES,
  type ListenerDeadlines,
} from '../../contracts/http/listener-deadlines.js';
import { decodeJsonBody, registerRawBodyParser } from './body.js';
import { boundDetail, boundItems } from './bounded-errors.js';
import { answerClientError } from './client-error.js';
import { envelopeHook } from './envelope-hook.js';
import { HttpError, RequestValidationError, type ValidationErrorItem } from './errors.js';
import { DEFAULT_MAX_JSON_DEPTH } from './json-scan.js';
import { trackRouteMethods } from './options-routes.js';
import { lingeringClose } from '../../contracts/http/lingering-close.js';
import { createLogger } from './logger.js';
import { createServiceMetrics, registerHttpMetrics, type ServiceMetrics } from './metrics.js';
import { registerOpenApi } from './openapi.js';
import { registerProbes, type ReadinessCheck } from './probes.js';
import { toValidationItems, validatorCompiler } from './validation.js';

export type ServiceApp = FastifyInstance<
  Server,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** Request bodies are capped at 1 MiB, 413 beyond (docs/service-framework.md). */
const DEFAULT_BODY_LIMIT = 1024 * 1024;

export interface ServiceOptions {
  name: string;
  version: string;
  description: string;
  /** Verifies the HMAC envelope on every non-exempt path; `false` only for cost-monitor (no auth by design). */
  envelope: EnvelopeVerifier | false;
  /** Routes of the service; registered after the framework's hooks so they all apply. */
  routes: (app: ServiceApp) => void | Promise<void>;
  /** Named readiness checks reported by GET /readyz. */
  readiness?: Record<string, ReadinessCheck>;
  /** Runs when the app closes (stop background loops, close clients). */
  onClose?: () => void | Promise<void>;
  logger?: Logger;
  bodyLimit?: number;
  /** Deepest nesting of objects and arrays in a JSON body (default 64; docs/api-limits.md). */
  maxJsonDepth?: number;
  /** Serve HTTPS directly (PEM key and certificate), e.g. cost-monitor on 8443 or a pod without a TLS sidecar. */
  https?: { key: string | Buffer; cert: string | Buffer };
  /** Listener deadlines (head, request, idle, keep-alive); SERVICE_LISTENER_DEADLINES by default (docs/timeouts.md). */
  deadlines?: Partial<ListenerDeadlines>;
  /**
   * A hot route that sees each request before Fastify (inference-proxy), built once the service exists.
   * It is not asked once close() has begun, so Fastify answers 503 while the service drains
   * (docs/service-framework.md, "A front for a hot route").
   */
  front?: (service: Service) => RequestFront;
}

/**
 * Sees a request before Fastify's routing and hooks; returns true when it has taken the request (and
 * answers it with the framework's rules), false to leave it to Fastify untouched.
 */
export type RequestFront = (req: IncomingMessage, res: ServerResponse) => boolean;

/** The front of a service's server: set once the service is built, dropped when close() begins. */
interface FrontDoor {
  front: RequestFront | undefined;
}

export interface Service {
  readonly app: ServiceApp;
  readonly metrics: ServiceMetrics;
  /** The deadlines of the app's own listener; a listener of our own (serveHttps) applies the same. */
  readonly deadlines: ListenerDeadlines;
  /** Flip readiness to failing before closing so load balancers drain this instance first. */
  startDraining(): void;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * Longest path parameter the router matches. Schemas set each parameter's real bound (a 422 names it);
 * this only keeps the router's own 414, which would echo the whole URL, out of reach (no URL is longer
 * than the 16 KiB Node allows for the request line and headers).
 */
const MAX_PARAM_LENGTH = 16 * 1024;

/** Errors Fastify raises before routing keep the {"detail"} shape, with a fixed text: never the URL. */
const FRAMEWORK_ERROR_DETAIL: Record<string, string> = {
  FST_ERR_BAD_URL: 'Malformed request URL',
  FST_ERR_MAX_PARAM_LENGTH: 'Path parameter too long',
};

const frameworkErrors: FastifyServerOptions['frameworkErrors'] = (error, _request, reply) => {
  // This hook's reply is typed generically over route schemas it never has; a plain reply is what it is.
  const plain = reply as unknown as FastifyReply;
  const status = error.statusCode ?? 400;
  void plain
    .code(status)
    .send({ detail: FRAMEWORK_ERROR_DETAIL[error.code] ?? STATUS_CODES[status] ?? 'Bad Request' });
};

function validationBody(items: ValidationErrorItem[]): { detail: ValidationErrorItem[] } {
  return { detail: boundItems(items) };
}

export async function createService(opts: ServiceOptions): Promise<Service> {
  const logger: FastifyBaseLogger = opts.logger ?? createLogger(opts.name, opts.version);
  const door: FrontDoor | undefined = opts.front ? { front: undefined } : undefined;
  const app = createApp(logger, opts, door);
  const deadlines: ListenerDeadlines = { ...SERVICE_LISTENER_DEADLINES, ...opts.deadlines };
  applyListenerDeadlines(app.server, deadlines);
  const metrics = createServiceMetrics(opts.name, opts.version);
  let draining = false;

  app.setValidatorCompiler(validatorCompiler);
  app.setSchemaErrorFormatter((errors, dataVar) => {
    const error = new RequestValidationError(toValidationItems(errors, dataVar));
    return error;
  });
  const optionsRoutes = trackRouteMethods(app);
  app.addHook('onRoute', closeRouteSchemas);

  registerRawBodyParser(app);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  if (opts.envelope) app.addHook('preValidation', envelopeHook(opts.envelope, metrics));
  const maxJsonDepth = opts.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;
  app.addHook('preValidation', async (request) => decodeJsonBody(request, maxJsonDepth));

  app.setErrorHandler(answerError);
  app.setNotFoundHandler(async (_request, reply) => reply.code(404).send({ detail: 'Not Found' }));

  await registerOpenApi(app, {
    title: opts.name,
    version: opts.version,
    description: opts.description,
    authenticated: opts.envelope !== false,
  });
  registerHttpMetrics(app, metrics);
  registerProbes(app, { service: opts.name, readiness: opts.readiness ?? {}, isDraining: () => draining });
  await opts.routes(app);
  optionsRoutes.register();

  if (opts.onClose) {
    const onClose = opts.onClose;
    app.addHook('onClose', async () => {
      await onClose();
    });
  }
  if (door && opts.front) {
    // preClose runs as soon as close() begins (Fastify has just set its own closing flag), before the
    // server stops listening: from then on every request goes to Fastify, which answers 503.
    // https://fastify.dev/docs/latest/Reference/Hooks/#preclose
    app.addHook('preClose', async () => {
      door.front = undefined;
    });
  }
  await app.ready();
  const service: Service = {
    app,
    metrics,
    deadlines,
    startDraining: () => {
      draining = true;
    },
  };
  if (door && opts.front) door.front = opts.front(service);
  return service;
}

/**
 * The server of a service with a front: Fastify's `serverFactory` hands over its request handler, and the
 * server's one 'request' listener asks the front first. Fastify applies none of its own server settings
 * to a server it did not make; applyListenerDeadlines sets them all, as for any service.
 * https://fastify.dev/docs/latest/Reference/Server/#serverfactory
 */
function frontedServerFactory(
  door: FrontDoor,
  https: ServiceOptions['https'],
): (handler: (req: IncomingMessage, res: ServerResponse) => void) => Server {
  return (handler) => {
    const listener = (req: IncomingMessage, res: ServerResponse): void => {
      const front = door.front;
      if (front === undefined || !front(req, res)) handler(req, res);
    };
    // An https.Server is Node's HTTP server over TLS; the services use only what both share (ServiceApp).
    return https ? createHttpsServer(https, listener) : createHttpServer(listener);
  };
}

/** The Fastify instance with the framework's server options (HTTP, or HTTPS when `opts.https` is set). */
function createApp(logger: FastifyBaseLogger, opts: ServiceOptions, door: FrontDoor | undefined): ServiceApp {
  const options = {
    loggerInstance: logger,
    bodyLimit: opts.bodyLimit ?? DEFAULT_BODY_LIMIT,
    logController: new LogController({ requestIdLogLabel: 'request_id' }),
    // Honour a sane caller-supplied id (the edge proxy forwards one) so a request can be traced end to end.
    genReqId: (req: IncomingMessage) => {
      const header = req.headers['x-request-id'];
      return typeof header === 'string' && REQUEST_ID.test(header) ? header : randomUUID();
    },
    forceCloseConnections: 'idle' as const,
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors,
    clientErrorHandler: answerClientError,
  };
  if (door) return Fastify({ ...options, serverFactory: frontedServerFactory(door, opts.https) });
  // Fastify types an HTTPS instance apart from an HTTP one; the services use only what both share (ServiceApp).
  const app = opts.https ? Fastify({ ...options, https: opts.https }) : Fastify(options);
  return app;
}

/**
 * Query strings and JSON bodies are closed by default: an unknown parameter or top-level field is a
 * 422 extra_forbidden, never silently ignored (a typo such as `namepsace=` or `stauts` must not turn a
 * filtered request into an unfiltered one). Free-form objects inside a body (manifests) stay open. A
 * route that forwards arbitrary queries (inference) opts out by declaring `additionalProperties: true`.
 */
function closeRouteSchemas(route: RouteOptions): void {
  if (route.schema && (route.schema as { hide?: boolean }).hide) return;
  const schema = (route.schema ??= {});
  schema.querystring = closed(schema.querystring ?? { type: 'object', properties: {} });
  if (schema.body) schema.body = closed(schema.body);
}

function closed(part: unknown): unknown {
  const object = part as Record<string, unknown>;
  return 'additionalProperties' in object ? object : { ...object, additionalProperties: false };
}

/**
 * A body over the limit is refused while it streams (from Content-Length before any byte is read, or as
 * soon as a chunked body passes the limit), never after buffering it. The answer says `Connection: close`,
 * so no client reuses the connection. Node ends such a connection with `socket.destroySoon()` — FIN, then
 * destroy once flushed — and destroying it with the rest of the upload unread is a TCP reset that can reach
 * the ALB before the 413 does (it answers the caller 502). So the FIN stays and the destroy is replaced by a
 * lingering close: the rest is read and dropped for a moment (contracts/http/lingering-close.ts).
 */
function lingerAfterEarlyAnswer(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('connection', 'close');
  const raw = request.raw;
  reply.raw.once('finish', () => {
    const socket = raw.socket;
    // An injected request (app.inject, tests) has no connection to close.
    if (raw.complete || !(socket instanceof Socket)) return;
    // Runs after Node's own 'finish' handler, which called destroySoon(): keep its FIN, drop its destroy.
    // eslint-disable-next-line @typescript-eslint/unbound-method -- the very function destroySoon() registered, to remove it
    socket.removeListener('finish', socket.destroy);
    lingeringClose(socket);
  });
}

/** Every error a route or hook throws, as the FastAPI-compatible `{"detail"}` answer. */
function answerError(
  error: FastifyError | HttpError | RequestValidationError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  if (error instanceof RequestValidationError) {
    return reply.code(422).send(validationBody(error.items));
  }
  if (error instanceof HttpError) {
    return reply
      .code(error.statusCode)
      .headers(error.headers)
      .send({ detail: boundDetail(error.detail) });
  }
  if ('validation' in error && error.validation) {
    return reply
      .code(422)
      .send(validationBody(toValidationItems(error.validation, error.validationContext ?? 'body')));
  }
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    lingerAfterEarlyAnswer(request, reply);
    return reply.code(413).send({ detail: 'Request body too large' });
  }
  const status = error.statusCode ?? 500;
  if (status >= 500) {
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send({ detail: 'Internal Server Error' });
  }
  // Other framework 4xx (bad content length…): keep the status with its standard text, never the
  // framework's message (it may quote the request).
  request.log.info({ code: error.code, status }, 'request rejected by the framework');
  return reply.code(status).send({ detail: STATUS_CODES[status] ?? 'Bad Request' });
}

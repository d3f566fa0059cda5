/**
 * The service framework every cluster service is built on: one call gives a Fastify app with envelope
 * verification, FastAPI-compatible errors, request ids, JSON logs, Prometheus metrics, probes, a 1 MiB
 * body limit and an OpenAPI 3.1 document. A service only adds its routes.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyServerOptions,
} from 'fastify';
import type { Logger } from 'pino';
import type { EnvelopeVerifier } from '../../lambda/shared/envelope.js';
import { decodeJsonBody, registerRawBodyParser } from './body.js';
import { envelopeHook } from './envelope-hook.js';
import { HttpError, RequestValidationError, type ValidationErrorItem } from './errors.js';
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
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

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
  /** Serve HTTPS directly (PEM key and certificate), e.g. cost-monitor on 8443 or a pod without a TLS sidecar. */
  https?: { key: string | Buffer; cert: string | Buffer };
}

export interface Service {
  readonly app: ServiceApp;
  readonly metrics: ServiceMetrics;
  /** Flip readiness to failing before closing so load balancers drain this instance first. */
  startDraining(): void;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Errors Fastify raises before routing (a malformed percent-escape in the URL) keep the {"detail"} shape. */
const frameworkErrors: FastifyServerOptions['frameworkErrors'] = (error, _request, reply) => {
  // This hook's reply is typed generically over route schemas it never has; a plain reply is what it is.
  const plain = reply as unknown as FastifyReply;
  void plain
    .code(error.statusCode ?? 400)
    .send({ detail: error.code === 'FST_ERR_BAD_URL' ? 'Malformed request URL' : error.message });
};

function validationBody(items: ValidationErrorItem[]): { detail: ValidationErrorItem[] } {
  return { detail: items };
}

export async function createService(opts: ServiceOptions): Promise<Service> {
  const logger: FastifyBaseLogger = opts.logger ?? createLogger(opts.name, opts.version);
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
    routerOptions: { ignoreTrailingSlash: false },
    frameworkErrors,
  };
  // Fastify types an HTTPS instance apart from an HTTP one; every request/response API the services use
  // is the same, so both are handled as one ServiceApp type.
  const app = (opts.https
    ? Fastify({ ...options, https: opts.https })
    : Fastify(options)) as unknown as FastifyInstance<
    Server,
    IncomingMessage,
    ServerResponse,
    FastifyBaseLogger
  > as ServiceApp;

  const metrics = createServiceMetrics(opts.name, opts.version);
  let draining = false;

  app.setValidatorCompiler(validatorCompiler);
  app.setSchemaErrorFormatter((errors, dataVar) => {
    const error = new RequestValidationError(toValidationItems(errors, dataVar));
    return error;
  });

  // Query strings are closed by default: an unknown parameter is a 422, never silently ignored (a typo
  // such as `namepsace=` must not turn a filtered request into an unfiltered one). A route that forwards
  // arbitrary queries (inference) opts out by declaring `additionalProperties: true`.
  app.addHook('onRoute', (route) => {
    if (route.schema && (route.schema as { hide?: boolean }).hide) return;
    const schema = (route.schema ??= {});
    const query = (schema.querystring ?? { type: 'object', properties: {} }) as Record<string, unknown>;
    schema.querystring = 'additionalProperties' in query ? query : { ...query, additionalProperties: false };
  });

  registerRawBodyParser(app);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  if (opts.envelope) app.addHook('preValidation', envelopeHook(opts.envelope, metrics));
  app.addHook('preValidation', async (request) => decodeJsonBody(request));

  app.setErrorHandler((error: FastifyError | HttpError | RequestValidationError, request, reply) => {
    if (error instanceof RequestValidationError) {
      return reply.code(422).send(validationBody(error.items));
    }
    if (error instanceof HttpError) {
      return reply.code(error.statusCode).headers(error.headers).send({ detail: error.detail });
    }
    if ('validation' in error && error.validation) {
      return reply
        .code(422)
        .send(validationBody(toValidationItems(error.validation, error.validationContext ?? 'body')));
    }
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return reply.code(413).send({ detail: 'Request body too large' });
    }
    const status = error.statusCode ?? 500;
    if (status >= 500) {
      request.log.error({ err: error }, 'unhandled error');
      return reply.code(500).send({ detail: 'Internal Server Error' });
    }
    // Other framework 4xx (malformed request line, bad content length…): keep the status, never a stack.
    request.log.info({ code: error.code, status }, 'request rejected by the framework');
    return reply.code(status).send({ detail: error.message });
  });
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

  if (opts.onClose) {
    const onClose = opts.onClose;
    app.addHook('onClose', async () => {
      await onClose();
    });
  }
  await app.ready();
  return {
    app,
    metrics,
    startDraining: () => {
      draining = true;
    },
  };
}

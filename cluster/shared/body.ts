/**
 * Request bodies are read as raw bytes (≤ the body limit) so the HMAC envelope can hash exactly what was
 * sent. JSON is decoded only after the envelope has verified (see service.ts), so an unauthenticated
 * caller never learns anything from a parse error.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { RequestValidationError } from './errors.js';
import { jsonDecodeItem } from './validation.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The exact request body bytes; undefined when the request had no body. */
    rawBody: Buffer | undefined;
  }
  interface FastifyContextConfig {
    /** The route forwards the body as bytes (a proxy): never JSON-decode it, whatever its content type. */
    rawBody?: boolean;
  }
}

const JSON_TYPE = /^application\/([\w.+-]+\+)?json\b/i;

export function isJsonContentType(contentType: string | undefined): boolean {
  return contentType !== undefined && JSON_TYPE.test(contentType);
}

export function registerRawBodyParser(app: FastifyInstance): void {
  app.decorateRequest('rawBody', undefined);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request: FastifyRequest, body: Buffer, done) => {
    request.rawBody = body;
    done(null, body.length > 0 ? body : undefined);
  });
}

/** preValidation step: turn a JSON body's bytes into a value for schema validation (422 json_invalid on bad JSON). */
export function decodeJsonBody(request: FastifyRequest): void {
  if (request.routeOptions.config.rawBody) return;
  const raw = request.rawBody;
  if (raw === undefined || raw.length === 0 || !isJsonContentType(request.headers['content-type'])) return;
  try {
    request.body = JSON.parse(raw.toString('utf8')) as unknown;
  } catch (error) {
    throw new RequestValidationError([jsonDecodeItem(error as Error)]);
  }
}

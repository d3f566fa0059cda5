/**
 * Request bodies are read as raw bytes (≤ the body limit) so the HMAC envelope can hash exactly what was
 * sent. JSON is decoded only after the envelope has verified (see service.ts), so an unauthenticated
 * caller never learns anything from a parse error. Every rule here is in docs/service-framework.md
 * ("Request bodies") and docs/api-limits.md.
 */
import { isUtf8 } from 'node:buffer';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError, RequestValidationError, type ValidationErrorItem } from './errors.js';
import { DEFAULT_MAX_JSON_DEPTH, scanJson, type JsonProblem } from './json-scan.js';

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

const JSON_TYPE = /^application\/([\w.+-]+\+)?json\s*(;|$)/i;
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)"?/i;

function isJsonContentType(contentType: string | undefined): boolean {
  return contentType !== undefined && JSON_TYPE.test(contentType);
}

export function registerRawBodyParser(app: FastifyInstance): void {
  app.decorateRequest('rawBody', undefined);
  app.removeAllContentTypeParsers();
  // The body stays bytes until decodeJsonBody: nothing downstream ever sees (or echoes) a Buffer.
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request: FastifyRequest, body: Buffer, done) => {
    request.rawBody = body;
    done(null, undefined);
  });
}

interface ObjectSchema {
  required?: unknown;
  properties?: Record<string, { default?: unknown } | undefined>;
}

/** The route's body schema, when it declares one. */
function bodySchemaOf(request: FastifyRequest): ObjectSchema | undefined {
  const schema = request.routeOptions.schema?.body;
  return typeof schema === 'object' && schema !== null ? schema : undefined;
}

/** True when `{}` is a valid body: every field the schema requires has a default. */
function everyFieldOptional(schema: ObjectSchema): boolean {
  const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
  return required.every((name) => schema.properties?.[String(name)]?.default !== undefined);
}

const unsupported = (why: string) => new HttpError(415, `Unsupported media type: ${why}`);

function problemItem(problem: JsonProblem, maxDepth: number): ValidationErrorItem {
  switch (problem.kind) {
    case 'syntax':
      // FastAPI's answer for a body that is not JSON, with Python's message for the first error.
      return {
        loc: ['body', problem.position],
        msg: 'JSON decode error',
        type: 'json_invalid',
        input: {},
        ctx: { error: problem.message },
      };
    case 'depth':
      return {
        loc: ['body', ...problem.path],
        msg: `Value error, objects and arrays may nest at most ${maxDepth} levels deep (docs/api-limits.md)`,
        type: 'value_error',
        ctx: { max_depth: maxDepth },
      };
    case 'surrogate':
      return {
        loc: ['body', ...problem.path],
        msg: 'Input should be a valid string, unable to parse raw data as a unicode string (unpaired \\u surrogate escape)',
        type: 'string_unicode',
      };
    case 'proto_key':
      return {
        loc: ['body', ...problem.path],
        msg: 'Value error, the key __proto__ is not allowed (docs/api-limits.md)',
        type: 'value_error',
      };
  }
}

/**
 * preValidation step: the request's JSON body as a value for schema validation. Only routes that declare
 * a body schema decode one (a body sent to any other route is ignored, as FastAPI does):
 * - no body: `{}` when every field of the body is optional, otherwise absent (422 missing);
 * - a content type that is not `application/json` or `+json` → 415; no content type is read as JSON;
 * - not UTF-8 → 400; not JSON, too deep, lone surrogates, `__proto__` keys → 422, before parsing.
 */
export function decodeJsonBody(request: FastifyRequest, maxDepth = DEFAULT_MAX_JSON_DEPTH): void {
  if (request.routeOptions.config.rawBody) return;
  const schema = bodySchemaOf(request);
  if (!schema) return;
  const raw = request.rawBody;
  if (raw === undefined || raw.length === 0) {
    if (everyFieldOptional(schema)) request.body = {};
    return;
  }
  const contentType = request.headers['content-type'];
  if (contentType !== undefined) {
    if (!isJsonContentType(contentType)) {
      throw unsupported('send the body as application/json');
    }
    const charset = CHARSET.exec(contentType)?.[1]?.toLowerCase();
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      throw unsupported('JSON bodies are UTF-8 (drop the charset or send charset=utf-8)');
    }
  }
  if (!isUtf8(raw)) {
    throw new HttpError(400, 'There was an error parsing the body: it is not valid UTF-8');
  }
  // A UTF-8 byte order mark is allowed (and dropped), as Python's json reads it.
  let text = raw.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const problem = scanJson(text, maxDepth);
  if (problem) throw new RequestValidationError([problemItem(problem, maxDepth)]);
  request.body = JSON.parse(text) as unknown;
}

/**
 * OpenAPI 3.1 description of a service, generated from its route schemas (so operation ids, parameters
 * and bounds cannot drift from what is enforced) and served at GET /openapi.json.
 */
import { STATUS_CODES } from 'node:http';
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { isExemptPath } from './envelope-hook.js';

/** FastAPI's validation error components (docs/service-framework.md, "Validation rules") and the plain error body. */
export interface OpenApiOptions {
  title: string;
  version: string;
  description: string;
  /** False for services that run no envelope verification (cost-monitor). */
  authenticated: boolean;
}

/** Error shapes the document publishes once, as components, and every operation names by reference. */
const COMPONENTS = new Set(['HTTPValidationError', 'ErrorDetail']);

/**
 * A route's response schema as the document shows it: the shared error shapes (contracts/api/errors.ts,
 * recognised by their title) as references to the components of the same name, any other as it is.
 */
export function documented(code: string, schema: unknown): unknown {
  const { title, description } = (schema ?? {}) as { title?: unknown; description?: unknown };
  if (typeof title !== 'string' || !COMPONENTS.has(title)) return schema;
  return {
    description: typeof description === 'string' ? description : (STATUS_CODES[Number(code)] ?? code),
    content: { 'application/json': { schema: { $ref: `#/components/schemas/${title}` } } },
  };
}

/**
 * A field with a default may be left out, so the document does not list it as required (as FastAPI
 * publishes it). TypeBox lists every non-Optional property as required; Ajv fills the default first, so
 * validation is the same either way.
 */
function optionalDefaults(schema: Record<string, unknown>): Record<string, unknown> {
  const out = { ...schema };
  for (const part of ['querystring', 'params', 'headers', 'body']) {
    const object = schema[part] as { required?: unknown; properties?: Record<string, { default?: unknown }> };
    if (!object || !Array.isArray(object.required)) continue;
    const required = (object.required as string[]).filter(
      (name) => object.properties?.[name]?.default === undefined,
    );
    out[part] = { ...object, required };
  }
  return out;
}

export async function registerOpenApi(app: FastifyInstance, opts: OpenApiOptions): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: opts.title, version: opts.version, description: opts.description },
      components: {
        // FastAPI's validation error components (docs/service-framework.md) and the plain error body.
        schemas: {
          ValidationError: {
            title: 'ValidationError',
            type: 'object',
            required: ['loc', 'msg', 'type'],
            properties: {
              loc: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
              msg: { type: 'string' },
              type: { type: 'string' },
              input: {},
              ctx: { type: 'object' },
            },
          },
          HTTPValidationError: {
            title: 'HTTPValidationError',
            type: 'object',
            properties: {
              detail: { type: 'array', items: { $ref: '#/components/schemas/ValidationError' } },
            },
          },
          ErrorDetail: {
            title: 'ErrorDetail',
            type: 'object',
            required: ['detail'],
            properties: { detail: { type: 'string' } },
          },
        },
        ...(opts.authenticated
          ? {
              securitySchemes: {
                gcoHmac: {
                  type: 'apiKey',
                  in: 'header',
                  name: 'x-svc-signature',
                  description:
                    'Request-bound HMAC envelope: x-svc-signature-version, x-svc-timestamp, x-svc-nonce, x-svc-content-sha256, x-svc-signature (docs/envelope.md)',
                },
              },
            }
          : {}),
      },
    },
    // Every operation can answer 422 (unknown or malformed parameters); authenticated ones also 403.
    transform: ({ schema, url }) => {
      const base = optionalDefaults((schema ?? {}) as Record<string, unknown>);
      const declared = (base.response as Record<string, unknown> | undefined) ?? {};
      const response = Object.fromEntries(
        Object.entries(declared).map(([code, schema]) => [code, documented(code, schema)]),
      );
      response['422'] ??= {
        description: 'Validation Error',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/HTTPValidationError' } } },
      };
      const secured = opts.authenticated && !isExemptPath(url);
      if (secured) {
        response['403'] ??= {
          description: 'HMAC envelope verification failed',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorDetail' } } },
        };
      }
      return { schema: { ...base, response, ...(secured ? { security: [{ gcoHmac: [] }] } : {}) }, url };
    },
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

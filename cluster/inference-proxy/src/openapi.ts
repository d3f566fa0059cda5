/**
 * OpenAPI description of the proxy routes in the seed's terms. Fastify needs a wildcard to let
 * `{upstream_path}` span several segments (`/inference/:endpoint_name/*`); this per-route transform
 * publishes it as `/inference/{endpoint_name}/{upstream_path}`, keeps the seed's HEAD operation ids
 * (the swagger plugin would append `-head`) and adds the responses the framework's transform adds
 * (422, 403 and the gcoHmac requirement), since a route transform replaces the global one.
 */
import type { SwaggerTransform } from '@fastify/swagger';
import type { FastifySchema } from 'fastify';
import { Type } from 'typebox';

const json = (ref: string) => ({
  content: { 'application/json': { schema: { $ref: `#/components/schemas/${ref}` } } },
});

const PROXY_RESPONSES = {
  '200': { description: 'The model server’s response, streamed (status and headers are the model’s)' },
  '403': { description: 'HMAC envelope verification failed', ...json('ErrorDetail') },
  '404': {
    description: 'Unknown endpoint, not running in this region, or path outside the allowlist',
    ...json('ErrorDetail'),
  },
  '422': { description: 'Validation Error', ...json('HTTPValidationError') },
  '502': {
    description: 'Model server unreachable, TLS failure, or a malformed endpoint record',
    ...json('ErrorDetail'),
  },
  '503': { description: 'Endpoint store unavailable', ...json('ErrorDetail') },
  '504': { description: 'Model server sent no response headers in time', ...json('ErrorDetail') },
};

const SEED_PARAMS = {
  root: Type.Object({ endpoint_name: Type.String() }),
  path: Type.Object({ endpoint_name: Type.String(), upstream_path: Type.String() }),
};

export const SEED_URLS = {
  root: '/inference/:endpoint_name',
  path: '/inference/:endpoint_name/:upstream_path',
} as const;

export function proxyRouteTransform(kind: 'root' | 'path'): SwaggerTransform {
  return ({ schema }) => {
    const base = { ...(schema as Record<string, unknown>) };
    const operationId = typeof base.operationId === 'string' ? base.operationId.replace(/-head$/, '') : '';
    const out: FastifySchema = {
      ...base,
      operationId,
      params: SEED_PARAMS[kind],
      response: PROXY_RESPONSES,
      security: [{ gcoHmac: [] }],
    };
    return { schema: out, url: SEED_URLS[kind] };
  };
}

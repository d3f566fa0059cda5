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
import { INFERENCE_PROXY_RESPONSES } from '../../../contracts/api/inference-proxy.js';
import { documented } from '../../shared/openapi.js';

/** The proxy's own error answers (contracts/api/inference-proxy.ts), named by their shared components. */
const PROXY_RESPONSES = {
  '200': { description: 'The model server’s response, streamed (status and headers are the model’s)' },
  ...Object.fromEntries(
    Object.entries(INFERENCE_PROXY_RESPONSES.proxy).map(([code, schema]) => [code, documented(code, schema)]),
  ),
};

const SEED_PARAMS = {
  root: Type.Object({ endpoint_name: Type.String() }),
  path: Type.Object({ endpoint_name: Type.String(), upstream_path: Type.String() }),
};

const SEED_URLS = {
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

/** inference-proxy's operations: the descriptor and the proxy routes under /inference (docs/inference-proxy.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { INFERENCE_PROXY_RESPONSES as RESPONSES } from '../../../contracts/api/inference-proxy.js';
import type { InferenceProxyConfig } from './config.js';
import type { Forward } from './forward.js';
import { SERVICE_NAME, SERVICE_VERSION } from './identity.js';
import { proxyRouteTransform } from './openapi.js';
import type { ProxiedRequest } from './proxied-request.js';

export const PROXY_PREFIX = '/inference';

export const descriptorRoutes: FastifyPluginAsyncTypebox<{ config: InferenceProxyConfig }> = async (
  app,
  { config },
) => {
  const schema = { operationId: 'root__get', summary: 'Small service descriptor', response: RESPONSES.root };
  app.get('/', { schema }, async () => ({
    service: SERVICE_NAME,
    version: SERVICE_VERSION,
    region: config.region,
    description: 'Authenticated streaming reverse proxy to managed inference endpoints',
    endpoints: {
      inference: '/inference/{endpoint_name}/{upstream_path}',
      liveness: '/healthz',
      readiness: '/readyz',
    },
  }));
};

/** Every forwarded query is opaque to the proxy: no parameter may ever produce a 422. */
const OpenQuery = Type.Object({}, { additionalProperties: true });
const RootParams = Type.Object({ endpoint_name: Type.String() });
const PathParams = Type.Object({ endpoint_name: Type.String(), '*': Type.String() });

function proxyRoute(kind: 'root' | 'path', method: 'get' | 'post' | 'head') {
  const operationId =
    kind === 'root'
      ? `proxy_inference_root_inference__endpoint_name__${method}`
      : `proxy_inference_path_inference__endpoint_name___upstream_path__${method}`;
  return {
    schema: {
      operationId,
      summary:
        kind === 'root'
          ? 'Proxies an endpoint-root request'
          : 'Proxies a request for a sub-path of the endpoint (upstream_path may contain slashes)',
      params: kind === 'root' ? RootParams : PathParams,
      querystring: OpenQuery,
      // Only the proxy's own JSON errors: the model's answer is relayed on the hijacked reply.
      response: RESPONSES.proxy,
    },
    // GET routes do not get Fastify's implicit HEAD: HEAD is its own operation with its own id.
    exposeHeadRoute: false,
    config: {
      swaggerTransform: proxyRouteTransform(kind),
      swagger: { exposeHeadRoute: true },
      rawBody: true,
    },
  };
}

/** `/{endpoint_name}` and `/{endpoint_name}/{upstream_path}` for GET, POST and HEAD. */
export const proxyRoutes: FastifyPluginAsyncTypebox<{ forward: Forward }> = async (app, { forward }) => {
  for (const method of ['get', 'post', 'head'] as const) {
    app.route({
      method: method.toUpperCase(),
      url: '/:endpoint_name',
      ...proxyRoute('root', method),
      handler: async (request, reply) =>
        forward(proxiedRequest(request, reply), request.params.endpoint_name),
    });
    app.route({
      method: method.toUpperCase(),
      url: '/:endpoint_name/*',
      ...proxyRoute('path', method),
      handler: async (request, reply) =>
        forward(proxiedRequest(request, reply), request.params.endpoint_name),
    });
  }
};

/** A request that came through the Fastify routes, as forward.ts sees it. */
function proxiedRequest(request: FastifyRequest, reply: FastifyReply): ProxiedRequest {
  return {
    id: request.id,
    method: request.method,
    url: request.raw.url ?? request.url,
    headers: request.headers,
    body: request.rawBody,
    protocol: request.protocol,
    remoteAddress: request.raw.socket.remoteAddress,
    log: request.log,
    res: reply.raw,
    hijack: () => {
      reply.hijack();
    },
  };
}

/**
 * The desired state of an endpoint: a create request with its defaults applied, and the routing fields the
 * inference-proxy reads, derived from it (contracts/inference-endpoints.ts). Deterministic in the spec and
 * the name, so a retried write stores the very same record.
 */
import {
  endpointServiceHost,
  MODEL_TLS_PORT,
  type EndpointRecord,
  type EndpointResources,
  type EndpointSpec,
} from '../../../../contracts/inference-endpoints.js';
import type { CreateEndpointBody } from './schemas.js';

/**
 * Defaults of an OpenAI-compatible model server such as vLLM, which listens on 8000 and answers
 * GET /health (https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html).
 */
export const ENDPOINT_DEFAULTS = {
  port: 8000,
  servingPaths: ['/v1/completions', '/v1/chat/completions', '/v1/models/*'],
  healthPath: '/health',
  replicas: 1,
} as const;

/** The routing fields of a record: what the inference-proxy reads (docs/inference-proxy.md). */
export type RoutingFields = Pick<
  EndpointRecord,
  'service' | 'port' | 'canary' | 'serving_paths' | 'health_path'
>;

export function specOf(body: CreateEndpointBody): EndpointSpec {
  const resources: EndpointResources = {};
  if (body.resources?.cpu !== undefined) resources.cpu = body.resources.cpu;
  if (body.resources?.memory !== undefined) resources.memory = body.resources.memory;
  if (body.resources?.gpu !== undefined) resources.gpu = body.resources.gpu;
  return {
    image: body.image,
    container_port: body.port ?? ENDPOINT_DEFAULTS.port,
    serving_paths: [...(body.serving_paths ?? ENDPOINT_DEFAULTS.servingPaths)],
    health_path: body.health_path ?? ENDPOINT_DEFAULTS.healthPath,
    replicas: body.replicas ?? ENDPOINT_DEFAULTS.replicas,
    resources,
    env: { ...(body.env ?? {}) },
    // In the caller's order, each once (the schema refuses repeats).
    regions: [...body.regions],
    stopped: false,
    canary: null,
    previous_image: null,
  };
}

/**
 * The proxy connects to the TLS sidecar (MODEL_TLS_PORT) of the role's Service; the canary target
 * exists exactly while the spec has a canary.
 */
export function routingOf(name: string, spec: EndpointSpec): RoutingFields {
  return {
    service: endpointServiceHost(name, 'primary'),
    port: MODEL_TLS_PORT,
    canary: spec.canary
      ? { service: endpointServiceHost(name, 'canary'), port: MODEL_TLS_PORT, weight: spec.canary.weight }
      : null,
    serving_paths: [...spec.serving_paths],
    health_path: spec.health_path,
  };
}

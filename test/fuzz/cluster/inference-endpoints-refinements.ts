/**
 * What the schemas of the inference endpoint operations cannot say (operations.ts REFINEMENTS): a body
 * the lifecycle API accepts (trusted images, deployment regions, ports other than the sidecar's, paths of
 * the proxy's grammar, Kubernetes env names, requests within the policy's ceilings), the fixture endpoint
 * the per-name operations find, the statuses a valid request may get, and the table a refused write must
 * leave as it was.
 */
import fc from 'fast-check';
import { IMAGE } from '../../support/cluster-fixtures.js';
import { DEPLOYMENT_REGIONS } from './harness.js';

/** Created before the runs (suite.ts createFixtures); never deleted by them. */
export const ENDPOINT_FIXTURE = 'fuzz-endpoint';

const endpointName = fc.stringMatching(/^[a-z]([-a-z0-9]{0,12}[a-z0-9])?$/);
const image = fc.constantFrom(
  IMAGE,
  'public.ecr.aws/docker/library/python:3.12-slim',
  'nvcr.io/nvidia/tritonserver:24.05-py3',
  'busybox',
);
const envName = fc.stringMatching(/^[A-Z_][A-Z0-9_.-]{0,10}$/);

const endpointBody = fc.record(
  {
    name: endpointName,
    image,
    port: fc.integer({ min: 1, max: 65535 }).filter((p) => p !== 8443),
    serving_paths: fc.uniqueArray(fc.constantFrom('/v1/completions', '/v1/models/*', '/generate', '/'), {
      minLength: 1,
      maxLength: 3,
    }),
    health_path: fc.constantFrom('/health', '/ready', '/v1/health/ready'),
    replicas: fc.integer({ min: 0, max: 4 }),
    resources: fc.record(
      {
        cpu: fc.constantFrom('100m', '1', '2'),
        memory: fc.constantFrom('256Mi', '1Gi', '4Gi'),
        gpu: fc.integer({ min: 0, max: 1 }),
      },
      { requiredKeys: [] },
    ),
    env: fc.dictionary(envName, fc.string({ maxLength: 20 }), { maxKeys: 3 }),
    regions: fc.uniqueArray(fc.constantFrom(...DEPLOYMENT_REGIONS), { minLength: 1, maxLength: 2 }),
  },
  { requiredKeys: ['name', 'image', 'regions'] },
);

const generation = { expected_generation: fc.integer({ min: 1, max: 20 }) };
const optional = { requiredKeys: [] as never[] };
const namedPath = { name: fc.oneof(fc.constant(ENDPOINT_FIXTURE), endpointName) };
const change = { path: namedPath, valid: [200, 404, 409], write: 'endpoint' as const };

export const INFERENCE_ENDPOINT_REFINEMENTS = {
  create_inference_endpoint_api_v1_inference_endpoints_post: {
    body: endpointBody,
    headers: { 'idempotency-key': fc.uuid() },
    valid: [201, 409],
    write: 'endpoint' as const,
  },
  list_inference_endpoints_api_v1_inference_endpoints_get: {},
  get_inference_endpoint_api_v1_inference_endpoints__name__get: { path: namedPath, valid: [200, 404] },
  scale_inference_endpoint_api_v1_inference_endpoints__name__scale_post: {
    ...change,
    body: fc.record(
      { replicas: fc.integer({ min: 0, max: 4 }), ...generation },
      { requiredKeys: ['replicas'] },
    ),
  },
  image_inference_endpoint_api_v1_inference_endpoints__name__image_post: {
    ...change,
    body: fc.record({ image, ...generation }, { requiredKeys: ['image'] }),
  },
  canary_inference_endpoint_api_v1_inference_endpoints__name__canary_post: {
    ...change,
    body: fc.record(
      { image, weight: fc.integer({ min: 1, max: 99 }), ...generation },
      { requiredKeys: ['image', 'weight'] },
    ),
  },
  ...Object.fromEntries(
    ['stop', 'start', 'promote', 'rollback'].map((action) => [
      `${action}_inference_endpoint_api_v1_inference_endpoints__name__${action}_post`,
      { ...change, body: fc.record(generation, optional) },
    ]),
  ),
  delete_inference_endpoint_api_v1_inference_endpoints__name__delete: {
    // Never the fixture: the other operations look it up.
    path: { name: endpointName.filter((n) => n !== ENDPOINT_FIXTURE) },
    valid: [202, 404, 409],
    write: 'endpoint' as const,
  },
};

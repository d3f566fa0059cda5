/**
 * manifest-processor's answers on managed inference endpoints (docs/inference-endpoints.md): the view of a
 * record of contracts/inference-endpoints.ts. Response schemas of the `/api/v1/inference/endpoints` routes:
 * Fastify serialises through them, so a field left out here is left out of the answer.
 */
import { Type, type Static } from 'typebox';
import { BodyTooLarge, EnvelopeRejected, ErrorDetail, HTTPValidationError } from './errors.js';
import { NullableString, StringMap } from './schema.js';

const EndpointCanaryView = Type.Object({ image: Type.String(), weight: Type.Integer() });

const EndpointSpecView = Type.Object({
  image: Type.String(),
  container_port: Type.Integer(),
  serving_paths: Type.Array(Type.String()),
  health_path: Type.String(),
  replicas: Type.Integer(),
  resources: Type.Object({
    cpu: Type.Optional(Type.String()),
    memory: Type.Optional(Type.String()),
    gpu: Type.Optional(Type.Integer()),
  }),
  env: StringMap,
  regions: Type.Array(Type.String()),
  stopped: Type.Boolean(),
  canary: Type.Union([EndpointCanaryView, Type.Null()]),
  previous_image: NullableString,
});

/** What one region's reconciler last reported (contracts/inference-endpoints.ts EndpointRegionStatus). */
const EndpointRegionView = Type.Object({
  state: Type.String(),
  reason: Type.Optional(Type.String()),
  observed_generation: Type.Optional(Type.Integer()),
  ready_replicas: Type.Optional(Type.Integer()),
  canary_ready_replicas: Type.Optional(Type.Integer()),
  updated_at: Type.Optional(Type.String()),
});

/**
 * One endpoint: the desired `spec` (null for a record registered outside the API, such as the local
 * platform's sample model), its `generation`, and the observed state per region.
 */
export const InferenceEndpointView = Type.Object({
  name: Type.String(),
  spec: Type.Union([EndpointSpecView, Type.Null()]),
  generation: Type.Integer(),
  deleting: Type.Boolean(),
  created_at: NullableString,
  updated_at: NullableString,
  regions: Type.Record(Type.String(), EndpointRegionView),
});
export type InferenceEndpointView = Static<typeof InferenceEndpointView>;

const InferenceEndpointList = Type.Object({
  endpoints: Type.Array(InferenceEndpointView),
  count: Type.Integer(),
});

const common = { 403: EnvelopeRejected, 422: HTTPValidationError };
const withBody = { ...common, 413: BodyTooLarge };
const notFound = { 404: ErrorDetail('No endpoint of that name') };
const unavailable = { 503: ErrorDetail('Inference endpoint store unavailable') };
const conflict = (description: string) => ({ 409: ErrorDetail(description) });

const changeErrors = {
  ...withBody,
  ...notFound,
  ...conflict(
    'expected_generation is stale, another update won the race, the endpoint is being deleted, or the operation does not apply to its state',
  ),
  ...unavailable,
};

export const INFERENCE_ENDPOINT_RESPONSES = {
  create: {
    201: InferenceEndpointView,
    ...withBody,
    ...conflict('The name is taken, or the Idempotency-Key was used with another body'),
    ...unavailable,
  },
  list: { 200: InferenceEndpointList, ...common, ...unavailable },
  get: { 200: InferenceEndpointView, ...common, ...notFound, ...unavailable },
  /** Every spec change answers the view with its new generation. */
  change: { 200: InferenceEndpointView, ...changeErrors },
  /** Accepted: the regions' reconcilers remove the objects, then the record (deleting=true until then). */
  delete: { 202: InferenceEndpointView, ...changeErrors },
};

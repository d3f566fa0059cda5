/**
 * Request schemas of the inference endpoint operations (docs/inference-endpoints.md). Bodies are closed
 * like every body (unknown fields → 422 extra_forbidden, service framework), and so are the nested
 * `resources` and canary objects: a misspelt `replicas` must not silently deploy one pod. Checks a JSON
 * schema cannot express (registries, resource ceilings, deployment regions, env names, path grammar)
 * live in validation.ts.
 */
import { Type, type Static } from 'typebox';
import { ENDPOINT_NAME_PATTERN } from '../../../../contracts/inference-endpoints.js';
import { ERROR_HINT } from '../../../shared/validation.js';

const NAME_HINT =
  'endpoint names are lower-case letters, digits and "-", start with a letter, end with a letter or digit, at most 40 characters';

const EndpointName = Type.String({
  minLength: 1,
  maxLength: 40,
  pattern: ENDPOINT_NAME_PATTERN,
  description: 'Endpoint name (a DNS label of at most 40 characters, so ep-<name>-canary stays ≤ 63)',
  [ERROR_HINT]: NAME_HINT,
});

/** Image references are checked against the validation policy's trusted registries (validation.ts). */
const Image = Type.String({
  minLength: 1,
  maxLength: 512,
  description: 'Container image reference ([registry/]repository[:tag][@digest]) from a trusted registry',
});

/**
 * Optimistic concurrency: the generation the caller last saw. A stale one is 409; left out, the update
 * applies to whatever the current generation is.
 */
const ExpectedGeneration = Type.Optional(
  Type.Integer({ minimum: 1, description: 'Refuse (409) unless the endpoint is at this generation' }),
);

/** The statically bounded range; the configured cap (INFERENCE_MAX_REPLICAS) is checked in validation.ts. */
const Replicas = Type.Integer({ minimum: 0, maximum: 10_000, description: 'Model pods per region' });

const Quantity = Type.String({
  minLength: 1,
  maxLength: 32,
  description: 'Kubernetes quantity (e.g. "500m", "2Gi")',
});

const Resources = Type.Object(
  {
    cpu: Type.Optional(Quantity),
    memory: Type.Optional(Quantity),
    gpu: Type.Optional(Type.Integer({ minimum: 0, description: 'Whole nvidia.com/gpu devices per pod' })),
  },
  { additionalProperties: false, title: 'EndpointResources' },
);

const Path = Type.String({ minLength: 1, maxLength: 1024 });

export const CreateEndpointRequest = Type.Object(
  {
    name: EndpointName,
    image: Image,
    port: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 65535,
        description: "The model server's plain-HTTP container port (not 8443, the TLS sidecar's)",
      }),
    ),
    serving_paths: Type.Optional(
      Type.Array(Path, {
        minItems: 1,
        maxItems: 256,
        description: 'Paths the inference-proxy forwards (`/a/b` exactly, `/a/*` a prefix)',
      }),
    ),
    health_path: Type.Optional(Path),
    replicas: Type.Optional(Replicas),
    resources: Type.Optional(Resources),
    env: Type.Optional(
      Type.Record(Type.String(), Type.String({ maxLength: 32_768 }), {
        maxProperties: 128,
        description: 'Environment of the model container (Kubernetes variable names)',
      }),
    ),
    regions: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
      minItems: 1,
      maxItems: 64,
      uniqueItems: true,
      description: "Regions that run the endpoint (a subset of the deployment's regions)",
    }),
  },
  { title: 'CreateInferenceEndpointRequest' },
);
export type CreateEndpointBody = Static<typeof CreateEndpointRequest>;

export const ScaleRequest = Type.Object(
  { replicas: Replicas, expected_generation: ExpectedGeneration },
  { title: 'ScaleInferenceEndpointRequest' },
);

export const UpdateImageRequest = Type.Object(
  { image: Image, expected_generation: ExpectedGeneration },
  { title: 'UpdateInferenceEndpointImageRequest' },
);

export const CanaryRequest = Type.Object(
  {
    image: Image,
    weight: Type.Integer({
      minimum: 1,
      maximum: 99,
      description: 'Percentage of requests the canary receives',
    }),
    expected_generation: ExpectedGeneration,
  },
  { title: 'InferenceEndpointCanaryRequest' },
);

/** stop, start, promote, rollback and delete carry nothing else (an absent body is `{}`). */
export const GenerationRequest = Type.Object(
  { expected_generation: ExpectedGeneration },
  { title: 'InferenceEndpointGenerationRequest' },
);

/** Path names are checked for length only: a name that cannot exist is simply not found. */
export const EndpointPath = Type.Object({ name: Type.String({ minLength: 1, maxLength: 253 }) });

export const CreateHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x21-\\x7E]+$',
      description: 'Stable key for safe replay of an identical create (printable ASCII, no spaces)',
    }),
  ),
});

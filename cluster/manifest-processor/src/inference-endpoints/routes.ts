/**
 * The inference endpoint lifecycle (docs/inference-endpoints.md): create, list, get, scale, update the
 * image, stop, start, canary, promote, rollback and delete under /api/v1/inference/endpoints. The API
 * writes the desired state; each region's reconciler makes it so and reports back into `regions`.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { INFERENCE_ENDPOINT_RESPONSES as RESPONSES } from '../../../../contracts/api/inference-endpoints.js';
import { notFound, RequestValidationError, type ValidationErrorItem } from '../../../shared/errors.js';
import type { ServiceApp } from '../../../shared/service.js';
import { applyChange } from './changes.js';
import { createEndpoint } from './creation.js';
import {
  CanaryRequest,
  CreateEndpointRequest,
  CreateHeaders,
  EndpointPath,
  GenerationRequest,
  ScaleRequest,
  UpdateImageRequest,
} from './schemas.js';
import { specOf } from './spec.js';
import type { InferenceEndpointStore } from './store.js';
import {
  promote,
  rollback,
  scaleTo,
  setCanary,
  start,
  stop,
  updateImage,
  type Transition,
} from './transitions.js';
import type { EndpointValidator } from './validation.js';
import { endpointView } from './view.js';

export const INFERENCE_ENDPOINTS_PREFIX = '/api/v1/inference';

export interface InferenceEndpointRouteDeps {
  store: InferenceEndpointStore;
  validator: EndpointValidator;
  now?: () => Date;
}

/** Header set on answers to a create with an Idempotency-Key: true when it is a replay (as the queue's). */
const REPLAY_HEADER = 'idempotent-replayed';

function refuse(items: ValidationErrorItem[]): void {
  if (items.length > 0) throw new RequestValidationError(items);
}

/** The operations whose body carries nothing required may be sent without one: it reads as `{}`. */
async function emptyBodyIsEmptyObject(request: FastifyRequest): Promise<void> {
  if (request.body === undefined) request.body = {};
}

function createRoute(app: ServiceApp, deps: InferenceEndpointRouteDeps): void {
  app.post(
    '/endpoints',
    {
      schema: {
        operationId: 'create_inference_endpoint_api_v1_inference_endpoints_post',
        summary:
          'Create an inference endpoint (201; 409 when the name is taken; Idempotency-Key: same key and body replay the answer, another body is 409)',
        headers: CreateHeaders,
        body: CreateEndpointRequest,
        response: RESPONSES.create,
      },
    },
    async (request, reply) => {
      const spec = specOf(request.body);
      refuse(deps.validator.spec(spec));
      const key = request.headers['idempotency-key'];
      const { endpoint, replay } = await createEndpoint(
        deps.store,
        request.body.name,
        spec,
        key,
        deps.now?.() ?? new Date(),
      );
      request.log.info(
        { endpoint: endpoint.name, replay, regions: spec.regions },
        'inference endpoint created',
      );
      if (key !== undefined) reply.header(REPLAY_HEADER, String(replay));
      return reply.code(201).send(endpointView(endpoint));
    },
  );
}

function listRoute(app: ServiceApp, deps: InferenceEndpointRouteDeps): void {
  app.get(
    '/endpoints',
    {
      schema: {
        operationId: 'list_inference_endpoints_api_v1_inference_endpoints_get',
        summary: 'All inference endpoints with their desired spec and per-region state',
        response: RESPONSES.list,
      },
    },
    async () => {
      const endpoints = (await deps.store.list()).map(endpointView);
      return { endpoints, count: endpoints.length };
    },
  );
}

function getRoute(app: ServiceApp, deps: InferenceEndpointRouteDeps): void {
  app.get(
    '/endpoints/:name',
    {
      schema: {
        operationId: 'get_inference_endpoint_api_v1_inference_endpoints__name__get',
        summary: 'One inference endpoint: desired spec, generation and the observed state per region',
        params: EndpointPath,
        response: RESPONSES.get,
      },
    },
    async (request) => {
      const endpoint = await deps.store.get(request.params.name);
      if (!endpoint) throw notFound(`Inference endpoint ${request.params.name} not found`);
      return endpointView(endpoint);
    },
  );
}

/** Applies one operation and answers the changed view (the generation the regions converge to). */
async function change(
  deps: InferenceEndpointRouteDeps,
  request: FastifyRequest,
  name: string,
  expectedGeneration: number | undefined,
  transition: Transition,
  deleting = false,
) {
  const updated = await applyChange(deps.store, {
    name,
    expectedGeneration,
    transition,
    deleting,
    ...(deps.now ? { now: deps.now } : {}),
  });
  request.log.info(
    { endpoint: name, generation: updated.generation, deleting: updated.deleting },
    'inference endpoint changed',
  );
  return endpointView(updated);
}

/** FastAPI-style operation ids: `<action>_inference_endpoint_api_v1_inference_endpoints__name__<action>_post`. */
const operationId = (action: string) =>
  `${action.replace(/-/g, '_')}_inference_endpoint_api_v1_inference_endpoints__name__${action.replace(/-/g, '_')}_post`;

function scaleRoute(app: ServiceApp, deps: InferenceEndpointRouteDeps): void {
  app.post(
    '/endpoints/:name/scale',
    {
      schema: {
        operationId: operationId('scale'),
        summary: 'Set the replicas per region (0 keeps the endpoint but runs no pod)',
        params: EndpointPath,
        body: ScaleRequest,
        response: RESPONSES.change,
      },
    },
    async (request) => {
      const { replicas, expected_generation } = request.body;
      const scale = scaleTo(replicas);
      return change(deps, request, request.params.name, expected_generation, (spec, name) => {
        const next = scale(spec, name);
        if (next !== 'unchanged') refuse(deps.validator.capacity(next, ['body', 'replicas']));
        return next;
      });
    },
  );
}

function imageRoute(app: ServiceApp, deps: InferenceEndpointRouteDeps): void {
  app.post(
    '/endpoints/:name/image',
    {
      schema: {
        operationId: operationId('image'),
        summary: 'Replace the model image (the replaced one becomes previous_image, for rollback)',
        params: EndpointPath,
        body: UpdateImageRequest,
        response: RESPONSES.change,
      },
    },
    async (request) => {
      const { image, expected_generation } = request.body;
      refuse(deps.validator.image(image, ['body', 'image']));
      return change(deps, request, request.params.name, expected_generation, updateImage(image));
    },
  );
}

function canaryRoute(app: ServiceApp, deps: InferenceEndpointRouteDeps): void {
  app.post(
    '/endpoints/:name/canary',
    {
      schema: {
        operationId: operationId('canary'),
        summary: 'Run a second image beside the primary and send it weight% (1–99) of the requests',
        params: EndpointPath,
        body: CanaryRequest,
        response: RESPONSES.change,
      },
    },
    async (request) => {
      const { image, weight, expected_generation } = request.body;
      refuse(deps.validator.image(image, ['body', 'image']));
      return change(deps, request, request.params.name, expected_generation, setCanary(image, weight));
    },
  );
}

/** stop, start, promote and rollback: a transition and nothing but expected_generation in the body. */
function plainRoute(
  app: ServiceApp,
  deps: InferenceEndpointRouteDeps,
  action: 'stop' | 'start' | 'promote' | 'rollback',
  summary: string,
  transition: Transition,
): void {
  app.post(
    `/endpoints/:name/${action}`,
    {
      schema: {
        operationId: operationId(action),
        summary,
        params: EndpointPath,
        body: GenerationRequest,
        response: RESPONSES.change,
      },
      preValidation: emptyBodyIsEmptyObject,
    },
    async (request) =>
      change(deps, request, request.params.name, request.body.expected_generation, transition),
  );
}

function deleteRoute(app: ServiceApp, deps: InferenceEndpointRouteDeps): void {
  app.delete(
    '/endpoints/:name',
    {
      schema: {
        operationId: 'delete_inference_endpoint_api_v1_inference_endpoints__name__delete',
        summary:
          "Delete an endpoint (202: deleting=true; every region's reconciler removes its objects, then the record goes: GET answers 404)",
        params: EndpointPath,
        response: RESPONSES.delete,
      },
    },
    async (request, reply) => {
      const view = await change(deps, request, request.params.name, undefined, () => 'unchanged', true);
      return reply.code(202).send(view);
    },
  );
}

export const inferenceEndpointRoutes: FastifyPluginAsyncTypebox<InferenceEndpointRouteDeps> = async (
  app,
  deps,
) => {
  createRoute(app, deps);
  listRoute(app, deps);
  getRoute(app, deps);
  scaleRoute(app, deps);
  imageRoute(app, deps);
  plainRoute(app, deps, 'stop', 'Stop: every region scales to zero and reports stopped; settings stay', stop);
  plainRoute(app, deps, 'start', 'Start a stopped endpoint again', start);
  canaryRoute(app, deps);
  plainRoute(
    app,
    deps,
    'promote',
    "Make the canary's image the primary image (previous_image keeps the old one)",
    promote,
  );
  plainRoute(
    app,
    deps,
    'rollback',
    'Restore previous_image and drop any canary (409 when there is none)',
    rollback,
  );
  deleteRoute(app, deps);
};

/**
 * Applying one operation to a stored endpoint with optimistic concurrency: read, check the caller's
 * expected_generation, compute the next spec, write it conditioned on the generation read. A lost race
 * is a 409 when the caller named a generation (their view is stale); otherwise the operation is
 * recomputed on the newer record, a bounded number of times.
 */
import type { EndpointSpec } from '../../../../contracts/inference-endpoints.js';
import { HttpError, notFound } from '../../../shared/errors.js';
import type { StoredEndpoint } from './record.js';
import { routingOf } from './spec.js';
import type { InferenceEndpointStore } from './store.js';
import type { Transition } from './transitions.js';

const MAX_ATTEMPTS = 5;

export interface ChangeRequest {
  name: string;
  expectedGeneration: number | undefined;
  transition: Transition;
  /** delete: the change marks the record deleting; a record already deleting is answered as it is. */
  deleting?: boolean;
  now?: () => Date;
}

/** The record an operation may change: it exists, was made by the API, is at the expected generation. */
async function current(
  store: InferenceEndpointStore,
  req: ChangeRequest,
): Promise<StoredEndpoint & { spec: EndpointSpec }> {
  const record = await store.get(req.name);
  if (!record) throw notFound(`Inference endpoint ${req.name} not found`);
  if (!record.spec) {
    throw new HttpError(
      409,
      `Inference endpoint ${req.name} was registered outside the lifecycle API and cannot be changed through it`,
    );
  }
  if (req.expectedGeneration !== undefined && record.generation !== req.expectedGeneration) {
    throw new HttpError(
      409,
      `Inference endpoint ${req.name} is at generation ${record.generation}, not the expected ${req.expectedGeneration}; read it again and retry`,
    );
  }
  return { ...record, spec: record.spec };
}

export async function applyChange(
  store: InferenceEndpointStore,
  req: ChangeRequest,
): Promise<StoredEndpoint> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const record = await current(store, req);
    const { spec } = record;
    if (record.deleting) {
      if (req.deleting) return record; // a repeated delete is not an error
      throw new HttpError(409, `Inference endpoint ${req.name} is being deleted`);
    }
    const next = req.transition(spec, req.name);
    if (next === 'unchanged' && !req.deleting) return record;
    const nextSpec = next === 'unchanged' ? spec : next;
    const updated = await store.update(req.name, record.generation, {
      spec: nextSpec,
      routing: routingOf(req.name, nextSpec),
      deleting: req.deleting === true,
      updatedAt: (req.now?.() ?? new Date()).toISOString(),
    });
    if (updated) return updated;
    if (req.expectedGeneration !== undefined) {
      throw new HttpError(
        409,
        `Inference endpoint ${req.name} changed concurrently (it is no longer at generation ${req.expectedGeneration}); read it again and retry`,
      );
    }
  }
  throw new HttpError(409, `Inference endpoint ${req.name} kept changing concurrently; retry the request`);
}

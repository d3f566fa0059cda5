/**
 * Creating an endpoint exactly once. The record is one conditional put on its name, so two creates of a
 * name cannot both win. An Idempotency-Key is remembered on the record it created, with the hash of the
 * normalised request: the same key and body answer that record again (a replay); the same key with another
 * body is 409, as in the queue (docs/queue.md "Idempotency"). A key lives as long as its record.
 */
import type { EndpointRecord, EndpointSpec } from '../../../../contracts/inference-endpoints.js';
import { HttpError } from '../../../shared/errors.js';
import { requestHash } from '../queue/idempotency.js';
import { newRecordItem, type StoredEndpoint } from './record.js';
import { routingOf } from './spec.js';
import type { InferenceEndpointStore } from './store.js';

export interface CreateOutcome {
  endpoint: StoredEndpoint;
  /** True when the answer is the record an earlier request with the same key and body created. */
  replay: boolean;
}

export async function createEndpoint(
  store: InferenceEndpointStore,
  name: string,
  spec: EndpointSpec,
  key: string | undefined,
  now: Date,
): Promise<CreateOutcome> {
  const hash = requestHash({ name, spec });
  const at = now.toISOString();
  const record: EndpointRecord = {
    endpoint_name: name,
    spec,
    generation: 1,
    deleting: false,
    created_at: at,
    updated_at: at,
    regions: {},
    ...routingOf(name, spec),
  };
  const binding = key === undefined ? null : { idempotency_key: key, request_hash: hash };
  if (await store.create(newRecordItem(record, binding))) {
    return {
      endpoint: {
        name,
        spec,
        generation: 1,
        deleting: false,
        created_at: at,
        updated_at: at,
        regions: {},
        idempotency_key: key ?? null,
        request_hash: binding ? hash : null,
      },
      replay: false,
    };
  }
  const existing = await store.get(name);
  if (existing && key !== undefined && existing.idempotency_key === key) {
    if (existing.request_hash === hash) return { endpoint: existing, replay: true };
    throw new HttpError(
      409,
      `Idempotency-Key was already used with a different request body (endpoint ${name}); use a new key for a new request`,
    );
  }
  // Gone again in between (a delete completed): still a conflict of this create with another writer.
  throw new HttpError(409, `Inference endpoint ${name} already exists`);
}

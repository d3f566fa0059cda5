/**
 * Endpoint records as stored items (TABLES.inferenceEndpoints, pk `endpoint_name`, the shape of
 * contracts/inference-endpoints.ts EndpointRecord) and back. Items are read defensively: the table is
 * shared with every region's reconciler and, locally, with records registered outside the API (the
 * sample model has routing fields and regions but no spec), so a missing or malformed spec reads as
 * "not managed by the API" rather than as a crash.
 */
import type {
  EndpointRecord,
  EndpointRegionStatus,
  EndpointSpec,
} from '../../../../contracts/inference-endpoints.js';
import {
  asMap,
  listAttribute,
  mapAttribute,
  numberAttribute,
  stringAttribute,
  type StoredItem,
} from '../../../shared/dynamo.js';

/** A stored record as the API reads it. */
export interface StoredEndpoint {
  name: string;
  /** null: registered outside the API (no desired state to change). */
  spec: EndpointSpec | null;
  generation: number;
  deleting: boolean;
  created_at: string | null;
  updated_at: string | null;
  /** Each region's reconciler report, as stored (only `state` is known to be present). */
  regions: Record<string, Partial<Omit<EndpointRegionStatus, 'state'>> & { state: string }>;
  /** The Idempotency-Key of the create that made the record, and the hash of that request. */
  idempotency_key: string | null;
  request_hash: string | null;
}

/** The attributes the API alone writes besides the contract's: the create's Idempotency-Key binding. */
export interface IdempotencyBinding {
  idempotency_key: string;
  request_hash: string;
}

const strings = (value: unknown[]): string[] | null =>
  value.every((v): v is string => typeof v === 'string') ? value : null;

function specOf(item: StoredItem | null): EndpointSpec | null {
  if (!item) return null;
  const image = stringAttribute(item, 'image');
  const port = numberAttribute(item, 'container_port');
  const replicas = numberAttribute(item, 'replicas');
  const health = stringAttribute(item, 'health_path');
  const paths = strings(listAttribute(item, 'serving_paths'));
  const regions = strings(listAttribute(item, 'regions'));
  if (image === null || port === null || replicas === null || health === null || !paths || !regions)
    return null;
  const resources = mapAttribute(item, 'resources') ?? {};
  const env = mapAttribute(item, 'env') ?? {};
  const canary = mapAttribute(item, 'canary');
  const canaryImage = canary ? stringAttribute(canary, 'image') : null;
  const canaryWeight = canary ? numberAttribute(canary, 'weight') : null;
  return {
    image,
    container_port: port,
    serving_paths: paths,
    health_path: health,
    replicas,
    resources: {
      ...(typeof resources.cpu === 'string' ? { cpu: resources.cpu } : {}),
      ...(typeof resources.memory === 'string' ? { memory: resources.memory } : {}),
      ...(typeof resources.gpu === 'number' ? { gpu: resources.gpu } : {}),
    },
    env: Object.fromEntries(
      Object.entries(env).filter((e): e is [string, string] => typeof e[1] === 'string'),
    ),
    regions,
    stopped: item.stopped === true,
    canary:
      canaryImage !== null && canaryWeight !== null ? { image: canaryImage, weight: canaryWeight } : null,
    previous_image: stringAttribute(item, 'previous_image'),
  };
}

function regionsOf(item: StoredItem): StoredEndpoint['regions'] {
  const out: StoredEndpoint['regions'] = {};
  for (const [region, raw] of Object.entries(mapAttribute(item, 'regions') ?? {})) {
    const status = asMap(raw);
    const state = status ? stringAttribute(status, 'state') : null;
    if (!status || state === null) continue;
    const reason = stringAttribute(status, 'reason');
    const observed = numberAttribute(status, 'observed_generation');
    const ready = numberAttribute(status, 'ready_replicas');
    const canaryReady = numberAttribute(status, 'canary_ready_replicas');
    const updated = stringAttribute(status, 'updated_at');
    out[region] = {
      state,
      ...(reason !== null ? { reason } : {}),
      ...(observed !== null ? { observed_generation: observed } : {}),
      ...(ready !== null ? { ready_replicas: ready } : {}),
      ...(canaryReady !== null ? { canary_ready_replicas: canaryReady } : {}),
      ...(updated !== null ? { updated_at: updated } : {}),
    };
  }
  return out;
}

export function endpointOf(item: StoredItem): StoredEndpoint {
  return {
    name: stringAttribute(item, 'endpoint_name') ?? '',
    spec: specOf(mapAttribute(item, 'spec')),
    generation: numberAttribute(item, 'generation') ?? 0,
    deleting: item.deleting === true,
    created_at: stringAttribute(item, 'created_at'),
    updated_at: stringAttribute(item, 'updated_at'),
    regions: regionsOf(item),
    idempotency_key: stringAttribute(item, 'idempotency_key'),
    request_hash: stringAttribute(item, 'request_hash'),
  };
}

/** The item of a new record: generation 1, no region has reported yet (the map exists, empty). */
export function newRecordItem(record: EndpointRecord, binding: IdempotencyBinding | null): StoredItem {
  return { ...record, ...(binding ?? {}) };
}

/** The answer of every endpoint operation (contracts/api/inference-endpoints.ts InferenceEndpointView). */
import type { InferenceEndpointView } from '../../../../contracts/api/inference-endpoints.js';
import type { StoredEndpoint } from './record.js';

export function endpointView(record: StoredEndpoint): InferenceEndpointView {
  return {
    name: record.name,
    spec: record.spec,
    generation: record.generation,
    deleting: record.deleting,
    created_at: record.created_at,
    updated_at: record.updated_at,
    regions: record.regions,
  };
}

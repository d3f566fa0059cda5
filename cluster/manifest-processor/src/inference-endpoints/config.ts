/**
 * Inference endpoint lifecycle configuration: the central table's name (written by contracts/tables.ts
 * tableEnvironment()) and the replica cap of one endpoint in one region.
 */
import { TABLES } from '../../../../contracts/tables.js';
import { readContract, type EnvSource } from '../../../shared/env-source.js';

export interface InferenceEndpointConfig {
  /** INFERENCE_ENDPOINTS_TABLE: the central inference-endpoints table. */
  tableName: string;
  /**
   * INFERENCE_MAX_REPLICAS: most model pods an endpoint may ask for per region. The validation policy's
   * per-manifest CPU, memory and GPU ceilings apply on top (replicas × the pod's request).
   */
  maxReplicas: number;
}

const INFERENCE_ENDPOINT_DEFAULTS = { maxReplicas: 100 } as const;

export function loadInferenceEndpointConfig(env: EnvSource = process.env): InferenceEndpointConfig {
  return readContract(env, (read) => ({
    tableName:
      read.required(TABLES.inferenceEndpoints.envVar, `name of the ${TABLES.inferenceEndpoints.id} table`) ??
      '',
    maxReplicas: read.integer('INFERENCE_MAX_REPLICAS', INFERENCE_ENDPOINT_DEFAULTS.maxReplicas, {
      min: 1,
      max: 10_000,
    }),
  }));
}

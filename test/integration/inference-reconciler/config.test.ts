/** The reconciler's environment contract: defaults, a round trip, and the refusals of bad values. */
import {
  inferenceReconcilerEnvironment,
  INFERENCE_RECONCILER_DEFAULTS,
  loadInferenceReconcilerConfig,
  type InferenceReconcilerConfig,
} from '../../../cluster/manifest-processor/src/inference-reconciler/config.js';
import { EnvironmentError } from '../../../contracts/env/reader.js';

describe('inference reconciler configuration', () => {
  it('is off by default and needs no table then', () => {
    const config = loadInferenceReconcilerConfig({ REGION: 'us-east-1' });
    expect(config).toMatchObject({
      enabled: false,
      tableName: '',
      region: 'us-east-1',
      ...INFERENCE_RECONCILER_DEFAULTS,
    });
    expect(config.replicaId).not.toBe('');
  });

  it('round-trips through its environment', () => {
    const values: InferenceReconcilerConfig = {
      enabled: true,
      tableName: 'gco-inference-endpoints',
      region: 'eu-west-1',
      intervalMs: 2_000,
      leaseDurationSeconds: 20,
      gracePeriodMs: 120_000,
      tlsSidecarImage: 'registry.example/tls:1',
      tlsSecretName: 'tls',
      tlsKeyPairSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:gco/inference-AbCdEf',
      tlsRefreshMs: 60_000,
      tlsSidecarConfigMap: 'tls-conf',
      replicaId: 'pod-1',
    };
    expect(loadInferenceReconcilerConfig(inferenceReconcilerEnvironment(values))).toEqual(values);
  });

  it('refuses an enabled reconciler without its table, and out-of-range durations, naming each', () => {
    let error: unknown;
    try {
      loadInferenceReconcilerConfig({
        INFERENCE_RECONCILER_ENABLED: 'true',
        INFERENCE_RECONCILE_INTERVAL_MS: '0',
        INFERENCE_RECONCILER_LEASE_SECONDS: 'soon',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(EnvironmentError);
    const problems = (error as EnvironmentError).problems;
    for (const name of [
      'INFERENCE_ENDPOINTS_TABLE',
      'INFERENCE_RECONCILE_INTERVAL_MS',
      'INFERENCE_RECONCILER_LEASE_SECONDS',
    ]) {
      expect(problems.some((p) => p.startsWith(`${name}: `))).toBe(true);
    }
  });
});

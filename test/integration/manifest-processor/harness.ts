/** Starts manifest-processor against a fresh Kubernetes API simulator and calls it with signed requests. */
import { createManifestProcessor } from '../../../cluster/manifest-processor/src/app.js';
import { loadPolicyConfig, ValidationPolicy } from '../../../cluster/manifest-processor/src/policy/index.js';
import { silentServiceLogger } from '../../../cluster/shared/logger.js';
import type { Service } from '../../../cluster/shared/service.js';
import {
  kubeConfigFor,
  startKubeApiSimulator,
  type KubeApiSimulator,
} from '../../../local/kube-api-simulator/index.js';
import { POLICY_ENV, testEnvelopeVerifier } from '../../support/cluster-fixtures.js';
import { signedCaller, type SignedCall } from '../../support/signed-call.js';
import { waitFor } from '../../support/wait-for.js';

export interface Harness {
  sim: KubeApiSimulator;
  service: Service;
  base: string;
  call: SignedCall;
  waitFor: typeof waitFor;
  close(): Promise<void>;
}

export async function startHarness(env: Record<string, string> = {}): Promise<Harness> {
  const sim = await startKubeApiSimulator({ kubelet: { pendingMs: 30, runningMs: 60 } });
  const service = await createManifestProcessor({
    config: { clusterName: 'sim', region: 'us-east-1', defaultJobNamespace: 'svc-jobs' },
    policy: new ValidationPolicy(loadPolicyConfig({ ...POLICY_ENV, ...env })),
    kubeConfig: kubeConfigFor(sim.url),
    envelope: testEnvelopeVerifier(),
    logger: silentServiceLogger(),
  });
  const base = await service.app.listen({ host: '127.0.0.1', port: 0 });
  return {
    sim,
    service,
    base,
    call: signedCaller(base),
    waitFor,
    async close() {
      await service.app.close();
      await sim.close();
    },
  };
}

/**
 * Kubernetes client configuration. In a pod the service account is used; elsewhere KUBECONFIG (the local
 * platform points it at the Kubernetes API simulator).
 */
import { KubeConfig } from '@kubernetes/client-node';

export function kubeConfigFromEnv(env: NodeJS.ProcessEnv = process.env): KubeConfig {
  const kc = new KubeConfig();
  if (env.KUBECONFIG) kc.loadFromFile(env.KUBECONFIG);
  else if (env.KUBERNETES_SERVICE_HOST) kc.loadFromCluster();
  else kc.loadFromDefault();
  return kc;
}

/**
 * Kubernetes client configuration. In a pod the service account is used; elsewhere KUBECONFIG (the local
 * platform points it at the Kubernetes API simulator). Every API client built from it shares one
 * keep-alive agent per API server and TLS identity (./kube-pool.ts).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { EnvReader } from '../../contracts/env/reader.js';
import { PooledKubeConfig } from './kube-pool.js';

export { pooledKubeConfig } from './kube-pool.js';

export function kubeConfigFromEnv(env: NodeJS.ProcessEnv = process.env): KubeConfig {
  const read = new EnvReader(env);
  const file = read.optional('KUBECONFIG');
  const kc = new PooledKubeConfig();
  if (file) kc.loadFromFile(file);
  else if (read.optional('KUBERNETES_SERVICE_HOST')) kc.loadFromCluster();
  else kc.loadFromDefault();
  return kc;
}

/** One page of a Kubernetes list call as client-node returns it. */
export interface KubeListPage<T> {
  items: T[];
  metadata?: { _continue?: string };
}

/** Follows `continue` tokens until the list is complete (lists are paged so huge clusters stay bounded per call). */
export async function listAllPages<T>(
  page: (cont: string | undefined) => Promise<KubeListPage<T>>,
): Promise<T[]> {
  const items: T[] = [];
  let cont: string | undefined;
  do {
    const list = await page(cont);
    items.push(...list.items);
    cont = list.metadata?._continue || undefined;
  } while (cont);
  return items;
}

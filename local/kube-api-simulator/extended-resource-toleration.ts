// The ExtendedResourceToleration admission plugin, which EKS enables on every platform version
// (https://docs.aws.amazon.com/eks/latest/userguide/platform-versions.html): a pod that requests an
// extended resource such as nvidia.com/gpu gets the toleration {key: <resource>, operator: Exists,
// effect: NoSchedule}, so nodes tainted with the resource's name (the platform's GPU NodePool,
// lib/constructs/gpu-node-pool.ts) take exactly the pods that ask for it and nothing else.
// Upstream: kubernetes/plugin/pkg/admission/extendedresourcetoleration/admission.go (Create and Update;
// here Create, since a pod's resources and existing tolerations cannot change on update).

import type { KubeObject, JsonRecord } from './types.js';
import { arr, isRecord, rec } from './types.js';

/**
 * helper.IsExtendedResourceName: a qualified name with a domain that is not a native resource
 * (`kubernetes.io/` or no domain) and not a `requests.` quota name.
 * https://github.com/kubernetes/kubernetes/blob/master/pkg/apis/core/helper/helpers.go
 */
export function isExtendedResourceName(name: string): boolean {
  if (!name.includes('/') || name.startsWith('requests.')) return false;
  const domain = name.slice(0, name.indexOf('/'));
  if (domain === 'kubernetes.io' || domain.endsWith('.kubernetes.io')) return false;
  return /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(
    name,
  );
}

/** Adds the tolerations of the extended resources a pod's containers request (after defaulting). */
export function addExtendedResourceTolerations(pod: KubeObject): void {
  const spec = rec(pod.spec);
  const resources = new Set<string>();
  for (const container of [...arr(spec.containers), ...arr(spec.initContainers)].filter(isRecord)) {
    for (const name of Object.keys(rec(rec(container.resources).requests))) {
      if (isExtendedResourceName(name)) resources.add(name);
    }
  }
  if (resources.size === 0) return;
  const tolerations: JsonRecord[] = arr(spec.tolerations).filter(isRecord);
  // Sorted, as the plugin's sets.String.List(); an equal toleration is not added twice
  // (helper.AddOrUpdateTolerationInPod).
  for (const key of [...resources].sort()) {
    const exists = tolerations.some(
      (t) => t.key === key && t.operator === 'Exists' && t.effect === 'NoSchedule' && (t.value ?? '') === '',
    );
    if (!exists) tolerations.push({ key, operator: 'Exists', effect: 'NoSchedule' });
  }
  spec.tolerations = tolerations;
  pod.spec = spec;
}

/**
 * The cluster side of the reconciler in cluster/k8s: its namespace, the sidecar configuration it
 * references, the Role it runs under (everything it calls, nothing more) and the NetworkPolicy that lets
 * only the inference-proxy reach the model pods, at the TLS port.
 */
import { INFERENCE_RECONCILER_DEFAULTS } from '../../../cluster/manifest-processor/src/inference-reconciler/config.js';
import { RECONCILER_LEASE } from '../../../cluster/manifest-processor/src/inference-reconciler/leader.js';
import {
  ENDPOINT_LABELS,
  INFERENCE_NAMESPACE,
  MODEL_TLS_PORT,
} from '../../../contracts/inference-endpoints.js';
import {
  loadManifestTemplates,
  placeholdersOf,
  renderManifests,
  type ManifestDocument,
} from '../../../lib/cluster-manifests.js';

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

describe('cluster/k8s: the inference reconciler', () => {
  const templates = loadManifestTemplates();
  const values = Object.fromEntries([...placeholdersOf(templates)].map((n) => [n, `value-of-${n}`]));
  const docs = renderManifests(templates, values).flatMap((f) => f.documents);
  const meta = (d: ManifestDocument) => d.metadata as { name: string; namespace?: string };
  const find = (kind: string, name: string, namespace?: string) =>
    docs.find((d) => d.kind === kind && meta(d).name === name && meta(d).namespace === namespace);

  it('declares the namespace and the TLS sidecar configuration the objects reference', () => {
    expect(find('Namespace', INFERENCE_NAMESPACE)).toBeDefined();
    const config = find('ConfigMap', INFERENCE_RECONCILER_DEFAULTS.tlsSidecarConfigMap, INFERENCE_NAMESPACE);
    const template = (config?.data as Record<string, string> | undefined)?.['default.conf.template'] ?? '';
    expect(template).toContain(`listen ${MODEL_TLS_PORT} ssl;`);
    expect(template).toContain('proxy_pass http://127.0.0.1:$MODEL_PORT;');
  });

  it('grants manifest-processor what the reconciler calls in gco-inference, and only its TLS Secret', () => {
    const role = find('Role', 'gco-inference-reconciler', INFERENCE_NAMESPACE);
    const rules = (role?.rules ?? []) as Rule[];
    const can = (group: string, resource: string, verb: string, name?: string) =>
      rules.some(
        (r) =>
          r.apiGroups.includes(group) &&
          r.resources.includes(resource) &&
          r.verbs.includes(verb) &&
          (r.resourceNames === undefined || (name !== undefined && r.resourceNames.includes(name))),
      );
    for (const [group, resource] of [
      ['apps', 'deployments'],
      ['', 'services'],
      ['policy', 'poddisruptionbudgets'],
    ] as const) {
      for (const verb of ['list', 'create', 'patch', 'delete']) expect(can(group, resource, verb)).toBe(true);
    }
    expect(can('', 'pods', 'list')).toBe(true);
    expect(can('', 'pods', 'delete')).toBe(false);
    expect(can('coordination.k8s.io', 'leases', 'create')).toBe(true);
    expect(can('coordination.k8s.io', 'leases', 'update', RECONCILER_LEASE)).toBe(true);
    expect(can('coordination.k8s.io', 'leases', 'update', 'someone-elses')).toBe(false);
    // Only the sidecars' Secret: read and patched by name; create cannot be limited by name.
    expect(can('', 'secrets', 'get', 'gco-inference-tls')).toBe(true);
    expect(can('', 'secrets', 'patch', 'gco-inference-tls')).toBe(true);
    expect(can('', 'secrets', 'create')).toBe(true);
    for (const verb of ['get', 'patch', 'update', 'delete']) {
      expect(can('', 'secrets', verb, 'someone-elses')).toBe(false);
    }
    expect(can('', 'secrets', 'list')).toBe(false);
    expect(can('', 'secrets', 'watch')).toBe(false);
    expect(find('RoleBinding', 'gco-inference-reconciler', INFERENCE_NAMESPACE)).toMatchObject({
      roleRef: { kind: 'Role', name: 'gco-inference-reconciler' },
      subjects: [{ kind: 'ServiceAccount', name: 'manifest-processor', namespace: 'gco-system' }],
    });
  });

  it('denies ingress to gco-inference but the inference-proxy at the TLS port', () => {
    expect(find('NetworkPolicy', 'default-deny-ingress', INFERENCE_NAMESPACE)?.spec).toEqual({
      podSelector: {},
      policyTypes: ['Ingress'],
    });
    expect(find('NetworkPolicy', 'endpoints-from-inference-proxy', INFERENCE_NAMESPACE)?.spec).toEqual({
      podSelector: { matchLabels: { [ENDPOINT_LABELS.managedBy]: ENDPOINT_LABELS.managedByValue } },
      policyTypes: ['Ingress'],
      ingress: [
        {
          from: [
            {
              namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'gco-system' } },
              podSelector: { matchLabels: { 'app.kubernetes.io/name': 'inference-proxy' } },
            },
          ],
          ports: [{ protocol: 'TCP', port: MODEL_TLS_PORT }],
        },
      ],
    });
  });
});

/**
 * The `cluster/k8s/` templates and their substitution (lib/cluster-manifests.ts): every document parses,
 * every placeholder is filled, substitution can never change a document's shape, and the manifests
 * carry the rules of docs/regional-stack.md and docs/service-framework.md (probes, hardening, ports,
 * routing, RBAC, NetworkPolicies).
 */
import { beforeAll, afterAll, describe, expect, test } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CLUSTER_NAMESPACE,
  POD_HTTPS_PORT,
  loadManifestTemplates,
  placeholdersOf,
  renderManifests,
  serviceDnsNames,
} from '../../lib/cluster-manifests.js';
import { CLUSTER_SERVICES } from '../../contracts/routing.js';
import type { ManifestDocument, ManifestFile } from '../../lib/cluster-manifests.js';
import { ALB_ROUTES } from '../../contracts/routing.js';
import { TABLES } from '../../contracts/tables.js';

// Read-only views of the parsed YAML; the manifests are plain JSON-like data.
interface Container {
  name: string;
  image: string;
  ports: { name: string; containerPort: number }[];
  env: { name: string; value?: string }[];
  resources: { requests: Record<string, string>; limits: Record<string, string> };
  securityContext: Record<string, unknown>;
  livenessProbe: { httpGet: { path: string; port: string; scheme: string } };
  readinessProbe: { httpGet: { path: string; port: string; scheme: string } };
  startupProbe: { httpGet: { path: string; port: string; scheme: string } };
}
interface PodSpec {
  serviceAccountName: string;
  securityContext: Record<string, unknown>;
  containers: Container[];
}

const ALB_SERVICES = [...new Set(ALB_ROUTES.map((route) => route.service))];

/** A value for every placeholder, each unique so a wrong wiring shows up. */
function valuesFor(files: readonly ManifestFile[]): Record<string, string> {
  return Object.fromEntries([...placeholdersOf(files)].map((name) => [name, `value-of-${name}`]));
}

const all = (files: readonly ManifestFile[]): ManifestDocument[] => files.flatMap((file) => file.documents);
const nameOf = (doc: ManifestDocument): string => (doc.metadata as { name: string }).name;
const namespaceOf = (doc: ManifestDocument): string | undefined =>
  (doc.metadata as { namespace?: string }).namespace;
const find = (docs: ManifestDocument[], kind: string, name: string): ManifestDocument => {
  const doc = docs.find((d) => d.kind === kind && nameOf(d) === name);
  if (!doc) throw new Error(`no ${kind} ${name}`);
  return doc;
};
const podSpecOf = (deployment: ManifestDocument): PodSpec =>
  (deployment.spec as { template: { spec: PodSpec } }).template.spec;
const containerOf = (deployment: ManifestDocument): Container => {
  const container = podSpecOf(deployment).containers[0];
  if (!container) throw new Error(`${nameOf(deployment)} has no container`);
  return container;
};
const envOf = (deployment: ManifestDocument): Record<string, string | undefined> =>
  Object.fromEntries(containerOf(deployment).env.map((e) => [e.name, e.value]));

describe('cluster/k8s templates', () => {
  const templates = loadManifestTemplates();
  const values = valuesFor(templates);
  const rendered = renderManifests(templates, values);
  const docs = all(rendered);
  const deployments = docs.filter((d) => d.kind === 'Deployment');

  test('every file parses into Kubernetes objects, applied namespaces first', () => {
    expect(rendered.map((f) => f.file)).toEqual([...rendered.map((f) => f.file)].sort());
    expect(rendered[0]?.documents.filter((d) => d.kind === 'Namespace').map(nameOf)).toEqual([
      CLUSTER_NAMESPACE,
      'svc-jobs',
      'gco-inference',
    ]);
    for (const doc of docs) {
      expect(typeof doc.apiVersion).toBe('string');
      expect(typeof doc.kind).toBe('string');
      expect(typeof nameOf(doc)).toBe('string');
    }
  });

  test('rendering fills every placeholder: no ${…} is left anywhere', () => {
    expect(JSON.stringify(docs)).not.toMatch(/\$\{/);
    // And each value was used where its placeholder stood.
    for (const value of Object.values(values)) expect(JSON.stringify(docs)).toContain(value);
  });

  test('every service has its ServiceAccount, Deployment and Service in the platform namespace', () => {
    for (const service of CLUSTER_SERVICES) {
      for (const kind of ['ServiceAccount', 'Deployment', 'Service', 'PodDisruptionBudget']) {
        expect(namespaceOf(find(docs, kind, service))).toBe(CLUSTER_NAMESPACE);
      }
      expect(podSpecOf(find(docs, 'Deployment', service)).serviceAccountName).toBe(service);
      expect(containerOf(find(docs, 'Deployment', service)).image).toBe(
        `value-of-IMAGE_${service.toUpperCase().replace(/-/g, '_')}`,
      );
    }
    expect(deployments.map(nameOf).sort()).toEqual([...CLUSTER_SERVICES].sort());
  });

  test.each(CLUSTER_SERVICES)('%s: probes /healthz and /readyz over HTTPS on the pod port', (service) => {
    const container = containerOf(find(docs, 'Deployment', service));
    expect(container.ports).toEqual([{ name: 'https', containerPort: POD_HTTPS_PORT, protocol: 'TCP' }]);
    expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'https', scheme: 'HTTPS' });
    expect(container.startupProbe.httpGet).toEqual({ path: '/healthz', port: 'https', scheme: 'HTTPS' });
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'https', scheme: 'HTTPS' });
    expect(envOf(find(docs, 'Deployment', service))).toMatchObject({
      PORT: String(POD_HTTPS_PORT),
      TLS_SECRET_ARN: 'value-of-TLS_SECRET_ARN',
    });
  });

  test.each(CLUSTER_SERVICES)('%s: non-root, read-only root file system, no capabilities', (service) => {
    const deployment = find(docs, 'Deployment', service);
    expect(podSpecOf(deployment).securityContext).toMatchObject({
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(containerOf(deployment).securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      capabilities: { drop: ['ALL'] },
    });
    const { resources } = containerOf(deployment);
    expect(Object.keys(resources.requests).sort()).toEqual(['cpu', 'memory']);
    expect(resources.limits.memory).toBeDefined();
  });

  test('the envelope key reaches every service but cost-monitor (no authentication by design)', () => {
    for (const service of CLUSTER_SERVICES) {
      const env = envOf(find(docs, 'Deployment', service));
      if (service === 'cost-monitor') expect(env.SIGNING_KEY_SECRET_ARN).toBeUndefined();
      else expect(env.SIGNING_KEY_SECRET_ARN).toBe('value-of-SIGNING_KEY_SECRET_ARN');
    }
  });

  test('table names reach the services under the variables contracts/tables.ts names', () => {
    const envVars = new Set<string>(Object.values(TABLES).map((t) => t.envVar));
    const seen = new Set<string>();
    for (const deployment of deployments) {
      for (const [name, value] of Object.entries(envOf(deployment))) {
        if (envVars.has(name)) {
          expect(value).toBe(`value-of-${name}`);
          seen.add(name);
        }
      }
    }
    expect([...seen].sort()).toEqual([...envVars].sort());
  });

  test('manifest-processor reaches cost-monitor by a name its certificate carries, verified against the CA', () => {
    const env = envOf(find(docs, 'Deployment', 'manifest-processor'));
    const url = new URL(env.COST_MONITOR_URL ?? '');
    expect(url.protocol).toBe('https:');
    expect(serviceDnsNames()).toContain(url.hostname);
    const costMonitorService = find(docs, 'Service', 'cost-monitor').spec as { ports: { port: number }[] };
    expect(Number(url.port)).toBe(costMonitorService.ports[0]?.port);
    expect(env.COST_MONITOR_CA_FILE).toBe('/etc/gco/internal-ca/ca.crt');
    expect(find(docs, 'ConfigMap', 'internal-ca').data).toEqual({ 'ca.crt': 'value-of-INTERNAL_CA_PEM' });
    expect(envOf(find(docs, 'Deployment', 'inference-proxy')).INTERNAL_CA_FILE).toBe(
      '/etc/gco/internal-ca/ca.crt',
    );
  });

  test('ALB-facing Services listen on the routing table port; cost-monitor stays on 8443', () => {
    for (const service of CLUSTER_SERVICES) {
      const spec = find(docs, 'Service', service).spec as {
        type: string;
        ports: { port: number; targetPort: string }[];
      };
      const route = ALB_ROUTES.find((r) => r.service === service);
      expect(spec.type).toBe('ClusterIP');
      expect(spec.ports).toEqual([
        { name: 'https', port: route ? route.port : 8443, targetPort: 'https', protocol: 'TCP' },
      ]);
    }
  });

  test('one Auto Mode TargetGroupBinding per ALB target group, bound to the Service port', () => {
    const bindings = docs.filter((d) => d.kind === 'TargetGroupBinding');
    expect(bindings.map(nameOf).sort()).toEqual([...ALB_SERVICES].sort());
    for (const binding of bindings) {
      const service = nameOf(binding);
      expect(binding.apiVersion).toBe('eks.amazonaws.com/v1');
      expect(binding.spec).toEqual({
        targetGroupARN: `value-of-TARGET_GROUP_ARN_${service.toUpperCase().replace(/-/g, '_')}`,
        targetType: 'ip',
        serviceRef: { name: service, port: ALB_ROUTES.find((r) => r.service === service)?.port },
      });
    }
  });

  test('NetworkPolicies: default deny; cost-monitor only from manifest-processor; ALB services from the VPC', () => {
    const policies = docs.filter((d) => d.kind === 'NetworkPolicy');
    expect(find(policies, 'NetworkPolicy', 'default-deny-ingress').spec).toEqual({
      podSelector: {},
      policyTypes: ['Ingress'],
    });
    expect(find(policies, 'NetworkPolicy', 'cost-monitor-from-manifest-processor').spec).toEqual({
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'cost-monitor' } },
      policyTypes: ['Ingress'],
      ingress: [
        {
          from: [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'manifest-processor' } } }],
          ports: [{ protocol: 'TCP', port: POD_HTTPS_PORT }],
        },
      ],
    });
    // No other policy admits traffic to cost-monitor.
    for (const policy of policies) {
      const selector = JSON.stringify((policy.spec as { podSelector: unknown }).podSelector);
      if (
        nameOf(policy) !== 'cost-monitor-from-manifest-processor' &&
        nameOf(policy) !== 'default-deny-ingress'
      ) {
        expect(selector).not.toContain('cost-monitor');
      }
    }
    const albPolicy = find(policies, 'NetworkPolicy', 'alb-to-services').spec as {
      podSelector: { matchExpressions: { values: string[] }[] };
    };
    expect([...(albPolicy.podSelector.matchExpressions[0]?.values ?? [])].sort()).toEqual(
      [...ALB_SERVICES].sort(),
    );
    expect(albPolicy).toEqual({
      podSelector: {
        matchExpressions: [{ key: 'app.kubernetes.io/name', operator: 'In', values: expect.any(Array) }],
      },
      policyTypes: ['Ingress'],
      ingress: [
        {
          from: [{ ipBlock: { cidr: 'value-of-VPC_CIDR' } }],
          ports: [{ protocol: 'TCP', port: POD_HTTPS_PORT }],
        },
      ],
    });
    // Auto Mode enforces NetworkPolicies only with its controller switched on.
    expect(find(docs, 'ConfigMap', 'amazon-vpc-cni')).toMatchObject({
      metadata: { namespace: 'kube-system' },
      data: { 'enable-network-policy-controller': 'true' },
    });
  });

  test('RBAC: manifest-processor works only in its allowed namespaces; health-monitor only reads', () => {
    const allowed = (envOf(find(docs, 'Deployment', 'manifest-processor')).ALLOWED_NAMESPACES ?? '').split(
      ',',
    );
    const bindings = docs.filter((d) => d.kind === 'RoleBinding' && nameOf(d) === 'gco-manifest-processor');
    expect(bindings.map(namespaceOf).sort()).toEqual([...allowed].sort());
    for (const binding of bindings) {
      expect(binding.roleRef).toEqual({
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'gco-manifest-processor-workloads',
      });
      expect(binding.subjects).toEqual([
        { kind: 'ServiceAccount', name: 'manifest-processor', namespace: CLUSTER_NAMESPACE },
      ]);
    }
    const workloads = find(docs, 'ClusterRole', 'gco-manifest-processor-workloads').rules as {
      apiGroups: string[];
      resources: string[];
      verbs: string[];
    }[];
    const can = (group: string, resource: string, verb: string): boolean =>
      workloads.some(
        (r) => r.apiGroups.includes(group) && r.resources.includes(resource) && r.verbs.includes(verb),
      );
    for (const [group, resource] of [
      ['batch', 'jobs'],
      ['', 'pods'],
    ] as const) {
      for (const verb of ['get', 'list', 'create', 'delete']) expect(can(group, resource, verb)).toBe(true);
    }
    for (const resource of ['pods/log', 'events', 'limitranges', 'resourcequotas']) {
      expect(can('', resource, 'get')).toBe(true);
      expect(can('', resource, 'create')).toBe(false);
    }
    expect(can('', 'secrets', 'get')).toBe(false);
    // Only what the cluster-wide view needs: node hardware of a job's pods and the API reachability check.
    expect(find(docs, 'ClusterRole', 'gco-manifest-processor-cluster').rules).toEqual([
      { apiGroups: [''], resources: ['nodes', 'namespaces'], verbs: ['get', 'list'] },
    ]);
    const healthRules = find(docs, 'ClusterRole', 'gco-health-monitor').rules as { verbs: string[] }[];
    for (const rule of healthRules) {
      for (const verb of rule.verbs) expect(['get', 'list', 'watch']).toContain(verb);
    }
    expect(JSON.stringify(healthRules)).toContain('metrics.k8s.io');
  });

  test('only the services that call the Kubernetes API mount a token', () => {
    const mounts = Object.fromEntries(
      CLUSTER_SERVICES.map((s) => [s, find(docs, 'ServiceAccount', s).automountServiceAccountToken]),
    );
    expect(mounts).toEqual({
      'manifest-processor': true,
      'health-monitor': true,
      'inference-proxy': false,
      'cost-monitor': false,
    });
  });
});

describe('substitution', () => {
  let dir: string;
  const write = (text: string): ManifestFile[] => {
    writeFileSync(join(dir, 'a.yaml'), text);
    return loadManifestTemplates(dir);
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'k8s-templates-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('a value is inserted as a string: YAML in it can never add keys, items or documents', () => {
    const files = write(
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: ${A}\n  b: pre-${B}-post\n',
    );
    const hostile = 'x\n  injected: true\n---\nkind: Secret';
    const token = '${Token[TOKEN.123]}';
    const [doc] = renderManifests(files, { A: hostile, B: token })[0]?.documents ?? [];
    expect(doc).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'x' },
      data: { a: hostile, b: `pre-${token}-post` },
    });
  });

  test('a placeholder without a value is an error naming where it is', () => {
    const files = write('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: ${MISSING}\n');
    expect(() => renderManifests(files, {})).toThrow('a.yaml[0] ConfigMap x.data.a: no value for ${MISSING}');
  });

  test('a value no template uses is an error (a typo in a name)', () => {
    const files = write('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n');
    expect(() => renderManifests(files, { IMAGE_TYPO: 'x' })).toThrow('value for ${IMAGE_TYPO} is not used');
  });

  test('a malformed placeholder is an error, not silently left in the manifest', () => {
    const files = write('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: ${image}\n');
    expect(() => renderManifests(files, {})).toThrow('malformed placeholder');
  });

  test('a placeholder in a mapping key is an error: keys are structure', () => {
    const files = write('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  ${KEY}: a\n');
    expect(() => renderManifests(files, { KEY: 'k' })).toThrow('placeholder in the key');
  });

  test('a document that is not a Kubernetes object is an error', () => {
    writeFileSync(join(dir, 'a.yaml'), '- just\n- a list\n');
    expect(() => loadManifestTemplates(dir)).toThrow('a.yaml document 0: expected a Kubernetes object');
  });

  test('a YAML syntax error is an error', () => {
    writeFileSync(join(dir, 'a.yaml'), 'apiVersion: v1\nkind: [unclosed\n');
    expect(() => loadManifestTemplates(dir)).toThrow('a.yaml document 0');
  });
});

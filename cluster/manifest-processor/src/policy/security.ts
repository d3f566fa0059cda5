/**
 * Pod and container security checks: host namespaces, hostPath volumes, privileged containers, privilege
 * escalation, added capabilities, run-as-non-root (when required) and reserved service accounts.
 */
import { isRecord, preview, type JsonPath, type JsonRecord } from './json.js';
import { violation, type PolicyViolation } from './rules.js';
import type { PodTemplate } from './workloads.js';

export interface SecuritySettings {
  /** Normalised with normaliseCapability. */
  allowedCapabilities: ReadonlySet<string>;
  requireRunAsNonRoot: boolean;
  reservedServiceAccounts: ReadonlySet<string>;
}

/** `cap_net_bind_service`, `CAP_NET_BIND_SERVICE` and `NET_BIND_SERVICE` are the same capability. */
export function normaliseCapability(name: string): string {
  return name.trim().toUpperCase().replace(/^CAP_/, '');
}

const HOST_NAMESPACES = ['hostNetwork', 'hostPID', 'hostIPC'] as const;

/** A securityContext object, or undefined (reporting a wrong type as manifest_shape). */
function contextAt(owner: JsonRecord, path: JsonPath, index: number, out: PolicyViolation[]) {
  const context = owner.securityContext;
  if (context === undefined || context === null) return undefined;
  if (isRecord(context)) return context;
  out.push(
    violation(index, [...path, 'securityContext'], 'manifest_shape', 'expected a securityContext object'),
  );
  return undefined;
}

function checkHostProcess(
  context: JsonRecord | undefined,
  path: JsonPath,
  index: number,
  out: PolicyViolation[],
) {
  const windows = context?.windowsOptions;
  if (isRecord(windows) && windows.hostProcess === true)
    out.push(
      violation(
        index,
        [...path, 'securityContext', 'windowsOptions', 'hostProcess'],
        'privileged',
        'Windows host-process containers have full access to the node',
      ),
    );
}

function checkCapabilities(
  context: JsonRecord,
  path: JsonPath,
  settings: SecuritySettings,
  index: number,
  out: PolicyViolation[],
) {
  const capabilities = context.capabilities;
  if (capabilities === undefined || capabilities === null) return;
  if (!isRecord(capabilities)) {
    out.push(
      violation(index, [...path, 'securityContext', 'capabilities'], 'manifest_shape', 'expected an object'),
    );
    return;
  }
  if (capabilities.add === undefined || capabilities.add === null) return;
  const addPath = [...path, 'securityContext', 'capabilities', 'add'];
  if (!Array.isArray(capabilities.add)) {
    out.push(violation(index, addPath, 'manifest_shape', 'expected an array of capability names'));
    return;
  }
  capabilities.add.forEach((name: unknown, i) => {
    if (typeof name === 'string' && settings.allowedCapabilities.has(normaliseCapability(name))) return;
    const allowed = [...settings.allowedCapabilities].join(', ') || 'none';
    out.push(
      violation(
        index,
        [...addPath, i],
        'capabilities',
        `capability ${preview(name)} is not allowed (allowed: ${allowed})`,
      ),
    );
  });
}

function checkRunAsNonRoot(
  template: PodTemplate,
  pod: JsonRecord | undefined,
  index: number,
  out: PolicyViolation[],
) {
  if (pod?.runAsUser === 0)
    out.push(
      violation(
        index,
        [...template.path, 'securityContext', 'runAsUser'],
        'run_as_non_root',
        'runAsUser 0 runs as root',
      ),
    );
  for (const ref of template.containers) {
    const context = isRecord(ref.container.securityContext) ? ref.container.securityContext : undefined;
    if (context?.runAsUser === 0)
      out.push(
        violation(
          index,
          [...ref.path, 'securityContext', 'runAsUser'],
          'run_as_non_root',
          'runAsUser 0 runs as root',
        ),
      );
    // The container setting overrides the pod's, exactly as the kubelet resolves it.
    const effective = context?.runAsNonRoot ?? pod?.runAsNonRoot;
    if (effective !== true)
      out.push(
        violation(
          index,
          [...ref.path, 'securityContext', 'runAsNonRoot'],
          'run_as_non_root',
          context?.runAsNonRoot === false
            ? 'runAsNonRoot: false is not allowed'
            : 'runAsNonRoot must be true on the container or the pod securityContext',
        ),
      );
  }
}

function checkServiceAccount(
  template: PodTemplate,
  settings: SecuritySettings,
  index: number,
  out: PolicyViolation[],
) {
  // serviceAccount is the deprecated alias the API server still honours.
  for (const field of ['serviceAccountName', 'serviceAccount'] as const) {
    const name = template.spec[field];
    if (typeof name === 'string' && settings.reservedServiceAccounts.has(name.trim().toLowerCase()))
      out.push(
        violation(
          index,
          [...template.path, field],
          'reserved_service_account',
          `service account "${name}" is reserved for the platform`,
        ),
      );
  }
}

export function checkSecurity(
  template: PodTemplate,
  settings: SecuritySettings,
  index: number,
  out: PolicyViolation[],
): void {
  const { spec, path } = template;
  for (const field of HOST_NAMESPACES) {
    if (spec[field] === true)
      out.push(
        violation(index, [...path, field], 'host_namespaces', `${field}: true shares a node namespace`),
      );
  }

  const volumes = spec.volumes;
  if (Array.isArray(volumes)) {
    volumes.forEach((volume: unknown, i) => {
      if (isRecord(volume) && volume.hostPath !== undefined && volume.hostPath !== null)
        out.push(
          violation(
            index,
            [...path, 'volumes', i, 'hostPath'],
            'host_path',
            'hostPath volumes expose the node filesystem',
          ),
        );
    });
  } else if (volumes !== undefined && volumes !== null) {
    out.push(violation(index, [...path, 'volumes'], 'manifest_shape', 'expected an array of volumes'));
  }

  const pod = contextAt(spec, path, index, out);
  checkHostProcess(pod, path, index, out);

  for (const ref of template.containers) {
    const context = contextAt(ref.container, ref.path, index, out);
    if (!context) continue;
    const at = (field: string) => [...ref.path, 'securityContext', field];
    if (context.privileged === true)
      out.push(
        violation(
          index,
          at('privileged'),
          'privileged',
          'privileged containers have full access to the node',
        ),
      );
    if (context.allowPrivilegeEscalation === true)
      out.push(
        violation(
          index,
          at('allowPrivilegeEscalation'),
          'privilege_escalation',
          'allowPrivilegeEscalation: true is not allowed',
        ),
      );
    checkHostProcess(context, ref.path, index, out);
    checkCapabilities(context, ref.path, settings, index, out);
  }

  if (settings.requireRunAsNonRoot) checkRunAsNonRoot(template, pod, index, out);
  checkServiceAccount(template, settings, index, out);
}

/** Metadata-level checks of one manifest: its shape, its kind and its namespace. */
import { isRecord, preview, type JsonRecord } from './json.js';
import type { KindAllowlist } from './kinds.js';
import { violation, type PolicyViolation } from './rules.js';

const DEFAULT_NAMESPACE = 'default';

export interface ManifestIdentity {
  apiVersion: string;
  kind: string;
  metadata: JsonRecord;
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

/** apiVersion, kind and metadata with a name (or generateName); undefined when the shape is unusable. */
export function checkShape(
  manifest: JsonRecord,
  index: number,
  out: PolicyViolation[],
): ManifestIdentity | undefined {
  const { apiVersion, kind, metadata } = manifest;
  let usable = true;
  if (!nonEmptyString(apiVersion)) {
    out.push(
      violation(
        index,
        ['apiVersion'],
        'manifest_shape',
        'apiVersion is required (a string such as batch/v1)',
      ),
    );
    usable = false;
  }
  if (!nonEmptyString(kind)) {
    out.push(violation(index, ['kind'], 'manifest_shape', 'kind is required (a string such as Job)'));
    usable = false;
  }
  if (!isRecord(metadata)) {
    out.push(
      violation(index, ['metadata'], 'manifest_shape', 'metadata is required (an object with a name)'),
    );
    return undefined;
  }
  if (!nonEmptyString(metadata.name) && !nonEmptyString(metadata.generateName)) {
    out.push(
      violation(
        index,
        ['metadata', 'name'],
        'manifest_shape',
        'metadata.name (or metadata.generateName) is required',
      ),
    );
  }
  const namespace = metadata.namespace;
  if (namespace !== undefined && namespace !== null && typeof namespace !== 'string') {
    out.push(
      violation(index, ['metadata', 'namespace'], 'manifest_shape', 'metadata.namespace must be a string'),
    );
  }
  return usable && typeof apiVersion === 'string' && typeof kind === 'string'
    ? { apiVersion, kind, metadata }
    : undefined;
}

export function checkKind(
  identity: ManifestIdentity,
  kinds: KindAllowlist,
  index: number,
  out: PolicyViolation[],
): void {
  if (kinds.allows(identity.apiVersion, identity.kind)) return;
  out.push(
    violation(
      index,
      ['kind'],
      'kind_allowed',
      `${preview(`${identity.apiVersion}/${identity.kind}`)} is not an allowed kind (allowed: ${kinds.list().join(', ')})`,
    ),
  );
}

/** A usable request-level namespace, or undefined when none was given. */
function requestNamespaceOf(requestNamespace: string | null | undefined): string | undefined {
  return typeof requestNamespace === 'string' && requestNamespace !== '' ? requestNamespace : undefined;
}

/** metadata.namespace ?? request namespace ?? "default". */
export function effectiveNamespace(manifest: unknown, requestNamespace: string | null | undefined): string {
  const own = isRecord(manifest) && isRecord(manifest.metadata) ? manifest.metadata.namespace : undefined;
  if (typeof own === 'string' && own !== '') return own;
  return requestNamespaceOf(requestNamespace) ?? DEFAULT_NAMESPACE;
}

function notAllowed(namespace: string, allowed: ReadonlySet<string>): string {
  return `namespace ${preview(namespace)} is not allowed (allowed: ${[...allowed].join(', ')})`;
}

function defaultNotAllowed(allowed: ReadonlySet<string>): string {
  return `no namespace is given here or in the request, and "${DEFAULT_NAMESPACE}" is not allowed (allowed: ${[...allowed].join(', ')})`;
}

/**
 * The manifest's own namespace, or the "default" fallback when neither it nor the request names one. A
 * namespace inherited from the request is reported once, by checkRequestNamespace.
 */
export function checkManifestNamespace(
  manifest: JsonRecord,
  requestNamespace: string | null | undefined,
  allowed: ReadonlySet<string>,
  index: number,
  out: PolicyViolation[],
): void {
  const own = isRecord(manifest.metadata) ? manifest.metadata.namespace : undefined;
  if (typeof own === 'string' && own !== '') {
    if (!allowed.has(own))
      out.push(violation(index, ['metadata', 'namespace'], 'namespace_allowed', notAllowed(own, allowed)));
    return;
  }
  if (requestNamespaceOf(requestNamespace) !== undefined) return;
  if (!allowed.has(DEFAULT_NAMESPACE))
    out.push(violation(index, ['metadata', 'namespace'], 'namespace_allowed', defaultNotAllowed(allowed)));
}

/** The request-level `namespace` is checked even when every manifest names its own (index -1). */
export function checkRequestNamespace(
  requestNamespace: string | null | undefined,
  allowed: ReadonlySet<string>,
  out: PolicyViolation[],
): void {
  const namespace = requestNamespaceOf(requestNamespace);
  if (namespace !== undefined && !allowed.has(namespace))
    out.push(violation(-1, ['namespace'], 'namespace_allowed', notAllowed(namespace, allowed)));
}

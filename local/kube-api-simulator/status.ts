// Kubernetes `Status` failures, shaped exactly like the real API server's (metav1.Status), so clients
// that branch on `reason`/`code` (client-node's ApiException body, kubectl's error printing) behave the same.

export interface StatusCause {
  reason: string;
  message: string;
  field: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
}

export interface StatusBody {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** Identifies the resource in error messages: `jobs.batch "x"` / `pods "x"`. */
export interface ResourceRef {
  group: string;
  resource: string;
}

export class KubeError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
  }

  toStatus(): StatusBody {
    const body: StatusBody = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      code: this.code,
    };
    if (this.details) body.details = this.details;
    return body;
  }
}

function qualified(ref: ResourceRef): string {
  return ref.group ? `${ref.resource}.${ref.group}` : ref.resource;
}

function details(ref: ResourceRef, name: string): StatusDetails {
  const d: StatusDetails = { name };
  if (ref.group) d.group = ref.group;
  d.kind = ref.resource;
  return d;
}

export function notFound(ref: ResourceRef, name: string): KubeError {
  return new KubeError(404, 'NotFound', `${qualified(ref)} "${name}" not found`, details(ref, name));
}

export function alreadyExists(ref: ResourceRef, name: string): KubeError {
  return new KubeError(
    409,
    'AlreadyExists',
    `${qualified(ref)} "${name}" already exists`,
    details(ref, name),
  );
}

export function conflict(ref: ResourceRef, name: string, why: string): KubeError {
  return new KubeError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualified(ref)} "${name}": ${why}`,
    details(ref, name),
  );
}

export function invalid(kind: string, group: string, name: string, causes: StatusCause[]): KubeError {
  const qualifiedKind = group ? `${kind}.${group}` : kind;
  const text = causes.map((c) => (c.field ? `${c.field}: ${c.message}` : c.message));
  const joined = text.length === 1 ? (text[0] ?? '') : `[${text.join(', ')}]`;
  const d: StatusDetails = { name };
  if (group) d.group = group;
  d.kind = kind;
  d.causes = causes;
  return new KubeError(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${joined}`, d);
}

export function badRequest(message: string): KubeError {
  return new KubeError(400, 'BadRequest', message);
}

export function forbidden(ref: ResourceRef, name: string, why: string): KubeError {
  const subject = name ? `${qualified(ref)} "${name}"` : qualified(ref);
  return new KubeError(403, 'Forbidden', `${subject} is forbidden: ${why}`, details(ref, name));
}

export function methodNotAllowed(message: string): KubeError {
  return new KubeError(405, 'MethodNotAllowed', message);
}

export function notFoundPath(): KubeError {
  return new KubeError(404, 'NotFound', 'the server could not find the requested resource', {});
}

export function unsupportedMediaType(contentType: string): KubeError {
  return new KubeError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: application/json, application/merge-patch+json, application/strategic-merge-patch+json, application/json-patch+json, application/apply-patch+yaml (got "${contentType}")`,
  );
}

export function tooLarge(limit: number): KubeError {
  return new KubeError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`);
}

export function internal(message: string): KubeError {
  return new KubeError(500, 'InternalError', `Internal error occurred: ${message}`);
}

export function serviceUnavailable(): KubeError {
  return new KubeError(503, 'ServiceUnavailable', 'the server is currently unable to handle the request');
}

/** Success Status (what DELETE answers for most resources). */
export function success(
  ref: ResourceRef,
  name: string,
  uid: string,
): Omit<StatusBody, 'code'> & { code?: number } {
  const d = details(ref, name);
  if (uid) d.uid = uid;
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: d };
}

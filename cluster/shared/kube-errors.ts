/**
 * Reading Kubernetes API failures. client-node throws ApiException with the raw `Status` body; callers
 * decide on `reason` (NotFound, AlreadyExists, Conflict, Invalid, Forbidden…), never on message text.
 */
import { ApiException } from '@kubernetes/client-node';
import { HttpError } from './errors.js';

export interface KubeStatus {
  code: number;
  reason: string;
  message: string;
  details?: { causes?: { field?: string; message?: string; reason?: string }[] };
}

/** The Kubernetes Status carried by a failed call, or undefined when the failure was not an API answer. */
export function kubeStatusOf(error: unknown): KubeStatus | undefined {
  if (!(error instanceof ApiException)) return undefined;
  const exception = error as ApiException<unknown>;
  let body: unknown = exception.body;
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body);
    } catch {
      body = undefined;
    }
  }
  const status = (body ?? {}) as Partial<KubeStatus> & { kind?: string };
  return {
    code: exception.code,
    reason: typeof status.reason === 'string' ? status.reason : '',
    message: typeof status.message === 'string' ? status.message : `HTTP ${exception.code}`,
    ...(status.details ? { details: status.details } : {}),
  };
}

/**
 * Maps a Kubernetes failure to the service's own error: NotFound → 404 with `notFoundDetail`, conflicts →
 * 409, an unreachable or failing API → 502/503. Anything unrecognised is rethrown (→ 500).
 */
export function toHttpError(error: unknown, notFoundDetail: string): HttpError {
  const status = kubeStatusOf(error);
  if (!status) {
    if (error instanceof HttpError) return error;
    return new HttpError(503, 'Kubernetes API unavailable');
  }
  switch (status.reason) {
    case 'NotFound':
      return new HttpError(404, notFoundDetail);
    case 'AlreadyExists':
    case 'Conflict':
      return new HttpError(409, status.message);
    case 'Invalid':
    case 'BadRequest':
      return new HttpError(400, status.message);
    default:
      // Forbidden here means the service's own RBAC is wrong: a platform fault, not the caller's.
      return new HttpError(502, `Kubernetes API error: ${status.reason || status.code}`);
  }
}

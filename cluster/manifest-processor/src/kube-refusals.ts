/**
 * The message of a resource the Kubernetes API refused, as the submit / validate / dry-run report carries
 * it (`resources[i].message`). Field refusals (../../shared/kube-field-errors.ts) name every field path and
 * what to do; any other refusal keeps the server's reason, message and causes.
 */
import { errorMessage } from '../../../contracts/runtime/errors.js';
import { fieldRefusalOf, type FieldRefusal } from '../../shared/kube-field-errors.js';
import { kubeStatusOf } from '../../shared/kube-errors.js';

function quoted(paths: readonly string[], what: string): string[] {
  return paths.map((path) => `${what} field "${path}"`);
}

function describeRefusal(refusal: FieldRefusal, kind: string | null): string {
  if (refusal.kind === 'unknown_fields') {
    const fields = [...quoted(refusal.unknown, 'unknown'), ...quoted(refusal.duplicate, 'duplicate')].join(
      ', ',
    );
    return (
      `${fields}: refused by strict field validation (fieldValidation=Strict: a field the ` +
      `${kind ?? 'object'} schema does not declare, or one given twice, is an error); ` +
      'fix the spelling or remove the field and submit again'
    );
  }
  const noun = kind ? kind.toLowerCase() : 'object';
  const fields = refusal.fields.length > 0 ? refusal.fields.join(', ') : 'a field';
  const verb = refusal.fields.length > 1 ? 'are' : 'is';
  return (
    `${fields} ${verb} immutable: the existing ${kind ?? 'object'} cannot be changed there; ` +
    `delete the ${noun} and resubmit it, or submit it under a new name`
  );
}

/** The report message for fields a manifest repeats (the API server's strict duplicate-field refusal). */
export function duplicateFieldsMessage(paths: readonly string[], kind: string | null): string {
  return describeRefusal({ kind: 'unknown_fields', unknown: [], duplicate: [...paths] }, kind);
}

/** True when the failure is the server refusing the manifest's fields (unknown, duplicate or immutable). */
export function isFieldRefusal(error: unknown, manifest: unknown): boolean {
  const status = kubeStatusOf(error);
  return status !== undefined && fieldRefusalOf(status, manifest) !== undefined;
}

/** The report message for a failed Kubernetes call about `manifest` (of kind `kind`). */
export function refusalMessage(error: unknown, manifest: unknown, kind: string | null): string {
  const status = kubeStatusOf(error);
  if (!status) return errorMessage(error);
  const refusal = fieldRefusalOf(status, manifest);
  if (refusal) return describeRefusal(refusal, kind);
  const causes = status.details?.causes?.map((c) => `${c.field ?? ''}: ${c.message ?? ''}`).join('; ');
  return `${status.reason || status.code}: ${status.message}${causes ? ` (${causes})` : ''}`;
}

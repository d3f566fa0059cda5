/**
 * The fields a submission repeats inside one manifest (`{"spec": {"backoffLimit": 1, "backoffLimit": 2}}`),
 * read from the request's exact bytes: parsing kept only the last value, and the API server, which refuses
 * duplicate fields under fieldValidation=Strict, would never see the repetition (../../../shared/json-duplicate-keys.ts).
 */
import { duplicateKeyPaths, formatKeyPath } from '../../../shared/json-duplicate-keys.js';

/** Manifest index → the paths (inside that manifest) of its repeated fields. */
export function duplicateFieldsOf(rawBody: Buffer | undefined): Map<number, string[]> {
  const out = new Map<number, string[]>();
  if (rawBody === undefined || rawBody.length === 0) return out;
  let text = rawBody.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // the byte order mark the body decoder drops
  const paths = duplicateKeyPaths(text);
  // A repeated top-level `manifests` key: only the last array counts, and indexes of the walk would mix
  // both arrays, so nothing is attributed.
  if (paths.some((path) => path.length === 1 && path[0] === 'manifests')) return out;
  for (const [top, index, ...inside] of paths) {
    if (top !== 'manifests' || typeof index !== 'number' || inside.length === 0) continue;
    out.set(index, [...(out.get(index) ?? []), formatKeyPath(inside)]);
  }
  return out;
}

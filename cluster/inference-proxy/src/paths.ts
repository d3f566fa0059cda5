/**
 * From the request target as received (`/inference/<name>[/<upstream path>][?<query>]`) to what is
 * forwarded. The upstream path and query are taken from the raw target, never rebuilt from decoded
 * parameters, so the model server receives exactly the bytes the caller signed.
 */

const INFERENCE_PREFIX = '/inference/';

export interface UpstreamTargetPath {
  /** Raw path forwarded upstream (`/` for the endpoint root). */
  rawPath: string;
  /** `?` plus the raw query when the target had one (a bare `?` is kept), else ''. */
  rawQuery: string;
  /** Percent-decoded path, used only for the allowlist check. */
  decodedPath: string;
}

/** Names the record store could never hold, rejected before any lookup. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what a name may not hold
const NAME_FORBIDDEN = /[\x00-\x1f\x7f/\\]/;

/**
 * What sends a path through the full checks: anything but printable ASCII, a `%` escape, a backslash, or
 * a `.` right after a `/` (a segment can only be `.` or `..` if it starts with a dot). A path without
 * any of them is its own decoding and holds no dot segment.
 */
const NEEDS_CHECKS = /[^!-~]|[%\\]|\/\./;

export function isPlausibleEndpointName(name: string): boolean {
  return name.length > 0 && name.length <= 255 && !NAME_FORBIDDEN.test(name);
}

/**
 * Splits the raw target. Returns undefined when the path is not one that can be checked safely against
 * an allowlist: malformed escapes, control characters, or a "." / ".." segment in the decoded path (a
 * normalising hop upstream could otherwise walk out of an allowed prefix).
 */
export function upstreamTargetOf(rawTarget: string): UpstreamTargetPath | undefined {
  const q = rawTarget.indexOf('?');
  const path = q === -1 ? rawTarget : rawTarget.slice(0, q);
  const rawQuery = q === -1 ? '' : rawTarget.slice(q);
  if (!path.startsWith(INFERENCE_PREFIX)) return undefined;
  const slash = path.indexOf('/', INFERENCE_PREFIX.length);
  const rawPath = slash === -1 || slash === path.length - 1 ? '/' : path.slice(slash);
  // The common case: the checks below would find nothing in it.
  if (!NEEDS_CHECKS.test(rawPath)) return { rawPath, rawQuery, decodedPath: rawPath };
  let decodedPath: string;
  try {
    decodedPath = decodeURIComponent(rawPath);
  } catch {
    return undefined;
  }
  // eslint-disable-next-line no-control-regex -- see above
  if (/[\x00-\x1f\x7f]/.test(decodedPath)) return undefined;
  if (decodedPath.split(/[/\\]/).some((segment) => segment === '.' || segment === '..')) return undefined;
  return { rawPath, rawQuery, decodedPath };
}

/**
 * Region-picking headers. The spec refuses `X-SVC-Target-Region` with 400 (document 2, "Header and body
 * rules"): the region that serves a request is the region of the API it is sent to, never a header. The
 * same holds for every spelling of the idea — `X-GCO-Target-Region` (the upstream orchestrator's name),
 * `X-<anything>-Target-Region`, `X-Target-Region` — in any letter case: a client that sends one believes it
 * picks a region, and silently ignoring it would serve it from another. Each is refused with 400 and a
 * message that says how to target a region instead (docs/edge-lambdas.md, "Request rules").
 */

/** `x-target-region` or `x-<token>-target-region`, compared in lower case. */
const TARGET_REGION_HEADER_RE = /^x-(?:[!#$%&'*+.^_`|~0-9a-z-]+-)?target-region$/;

/** Whether a header name asks for a target region (any letter case). */
function isTargetRegionHeader(name: string): boolean {
  return TARGET_REGION_HEADER_RE.test(name.toLowerCase());
}

/** The first region-picking header among `names`, in lower case; undefined when there is none. */
export function targetRegionHeaderIn(names: Iterable<string>): string | undefined {
  for (const name of names) if (isTargetRegionHeader(name)) return name.toLowerCase();
  return undefined;
}

/**
 * The caller-facing refusal. `alternative` says where the caller should go instead (the proxies: the
 * regional API; the aggregator: its routes already cover every region).
 */
export function targetRegionRefusal(header: string, alternative: string): string {
  return `The ${header} header is not honoured: a request is served by the region of the API it is sent to. ${alternative}`;
}

/** What the proxies tell a caller who wants one region. */
export const PROXY_REGION_ALTERNATIVE =
  "To target a region, call that region's regional API, or /api/v1/global/* for every region.";

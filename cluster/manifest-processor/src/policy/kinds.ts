/**
 * The allowed-kinds list. Entries are `apiVersion/Kind` (`batch/v1/Job`, `v1/Pod`) or a bare `Kind`, which
 * allows that kind under any apiVersion. Matching is exact: Kubernetes kinds and versions are case-sensitive.
 */
import type { Parsed } from './json.js';

export interface KindEntry {
  /** undefined = any apiVersion. */
  apiVersion: string | undefined;
  kind: string;
}

const KIND = /^[A-Z][A-Za-z0-9]*$/;
// group (a DNS subdomain) + version, or a core version.
const API_VERSION =
  /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*\/)?v\d+(?:(?:alpha|beta)\d+)?$/;

export const DEFAULT_ALLOWED_KINDS: readonly string[] = [
  'batch/v1/Job',
  'batch/v1/CronJob',
  'v1/Pod',
  'v1/ConfigMap',
  'v1/Service',
  'apps/v1/Deployment',
  'apps/v1/StatefulSet',
];

export function parseKindEntry(entry: string): Parsed<KindEntry> {
  const slash = entry.lastIndexOf('/');
  const kind = entry.slice(slash + 1);
  const apiVersion = slash < 0 ? undefined : entry.slice(0, slash);
  if (!KIND.test(kind)) {
    return { ok: false, error: `"${entry}": the kind must start with an upper-case letter (e.g. Job)` };
  }
  if (apiVersion !== undefined && !API_VERSION.test(apiVersion)) {
    return { ok: false, error: `"${entry}": expected apiVersion/Kind such as batch/v1/Job or v1/Pod` };
  }
  return { ok: true, value: { apiVersion, kind } };
}

function formatKindEntry(entry: KindEntry): string {
  return entry.apiVersion === undefined ? entry.kind : `${entry.apiVersion}/${entry.kind}`;
}

export class KindAllowlist {
  private readonly entries: readonly KindEntry[];

  /** Throws on a malformed entry (loadPolicyConfig reports those as configuration errors first). */
  constructor(entries: readonly string[]) {
    this.entries = entries.map((raw) => {
      const parsed = parseKindEntry(raw);
      if (!parsed.ok) throw new Error(`allowed kinds: ${parsed.error}`);
      return parsed.value;
    });
  }

  allows(apiVersion: string, kind: string): boolean {
    return this.entries.some(
      (e) => e.kind === kind && (e.apiVersion === undefined || e.apiVersion === apiVersion),
    );
  }

  list(): string[] {
    return this.entries.map(formatKindEntry);
  }
}

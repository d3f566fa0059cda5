/**
 * The Kubernetes manifests of the cluster services (`cluster/k8s/*.yaml`), filled for one region.
 *
 * Templates hold `${NAME}` placeholders (NAME: upper case, digits, underscores) inside string values.
 * Substitution happens AFTER parsing, on the parsed strings, in one pass: a value is never parsed as
 * YAML, so it cannot add keys, documents or list items, and a value containing `${…}` (a CDK token, a
 * PEM) is inserted as it is. A placeholder without a value, a value without a placeholder, or a
 * placeholder in a mapping key is an error at synth.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { CLUSTER_SERVICES } from '../contracts/routing.js';

/** Where the templates live; applied in file-name order (`00-…` first). */
const CLUSTER_MANIFEST_DIR = join(import.meta.dirname, '..', 'cluster', 'k8s');

/** Namespace of the platform's services (00-namespaces.yaml). */
export const CLUSTER_NAMESPACE = 'gco-system';

/** In-cluster DNS names of the services: what the pods' certificate must carry (e.g. COST_MONITOR_URL). */
export function serviceDnsNames(): string[] {
  return CLUSTER_SERVICES.flatMap((service) => [
    `${service}.${CLUSTER_NAMESPACE}.svc`,
    `${service}.${CLUSTER_NAMESPACE}.svc.cluster.local`,
  ]);
}

/** HTTPS port every service pod listens on (the Services map 443 or 8443 to it). */
export const POD_HTTPS_PORT = 8443;

export type ManifestDocument = Record<string, unknown>;

export interface ManifestFile {
  /** File name inside CLUSTER_MANIFEST_DIR, e.g. `30-workloads.yaml`. */
  readonly file: string;
  readonly documents: readonly ManifestDocument[];
}

const PLACEHOLDER = /\$\{([A-Z][A-Z0-9_]*)\}/g;
const HAS_PLACEHOLDER = /\$\{[A-Z][A-Z0-9_]*\}/;

/** Parses every `*.yaml` template; a syntax error or a document that is not a mapping is an error. */
export function loadManifestTemplates(dir: string = CLUSTER_MANIFEST_DIR): ManifestFile[] {
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.yaml'))
    .sort();
  if (files.length === 0) throw new Error(`No *.yaml manifests in ${dir}`);
  return files.map((file) => ({ file, documents: parseFile(file, readFileSync(join(dir, file), 'utf8')) }));
}

function parseFile(file: string, text: string): ManifestDocument[] {
  const documents: ManifestDocument[] = [];
  parseAllDocuments(text).forEach((doc, index) => {
    if (doc.errors.length > 0) {
      throw new Error(`${file} document ${index}: ${doc.errors.map((e) => e.message).join('; ')}`);
    }
    const value: unknown = doc.toJS();
    // An empty document (a trailing `---`) carries nothing to apply.
    if (value === null || value === undefined) return;
    if (!isRecord(value) || typeof value.kind !== 'string' || typeof value.apiVersion !== 'string') {
      throw new Error(`${file} document ${index}: expected a Kubernetes object with apiVersion and kind`);
    }
    documents.push(value);
  });
  return documents;
}

/** Every placeholder name the templates use. */
export function placeholdersOf(files: readonly ManifestFile[]): Set<string> {
  const names = new Set<string>();
  const visit = (value: unknown): void => {
    if (typeof value === 'string') {
      for (const match of value.matchAll(PLACEHOLDER)) names.add(match[1] ?? '');
    } else if (Array.isArray(value)) {
      value.forEach(visit);
    } else if (isRecord(value)) {
      Object.values(value).forEach(visit);
    }
  };
  for (const file of files) file.documents.forEach(visit);
  return names;
}

/**
 * The templates with every placeholder replaced by its value. Throws listing every unfilled placeholder
 * (with where it is), every value no template uses, and every placeholder found in a mapping key.
 */
export function renderManifests(
  files: readonly ManifestFile[],
  values: Readonly<Record<string, string>>,
): ManifestFile[] {
  const problems: string[] = [];
  const used = new Set<string>();

  const fill = (text: string, where: string): string => {
    // `${image}` or `${ NAME }` would silently stay in the manifest: only the strict form is a placeholder.
    if (text.replace(PLACEHOLDER, '').includes('${')) {
      problems.push(`${where}: malformed placeholder in ${JSON.stringify(text)} (expected \${UPPER_CASE})`);
    }
    return text.replace(PLACEHOLDER, (whole, name: string) => {
      const value = values[name];
      if (value === undefined) {
        problems.push(`${where}: no value for \${${name}}`);
        return whole;
      }
      used.add(name);
      return value;
    });
  };

  const render = (value: unknown, where: string): unknown => {
    if (typeof value === 'string') return fill(value, where);
    if (Array.isArray(value)) return value.map((item, i) => render(item, `${where}[${i}]`));
    if (isRecord(value)) {
      const out: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(value)) {
        // Keys are structure; a value must never be able to choose one.
        if (HAS_PLACEHOLDER.test(key))
          problems.push(`${where}: placeholder in the key ${JSON.stringify(key)}`);
        out[key] = render(child, `${where}.${key}`);
      }
      return out;
    }
    return value;
  };

  const rendered = files.map((file) => ({
    file: file.file,
    documents: file.documents.map(
      (doc, i) => render(doc, `${file.file}[${i}] ${describe(doc)}`) as ManifestDocument,
    ),
  }));
  for (const name of Object.keys(values)) {
    if (!used.has(name)) problems.push(`value for \${${name}} is not used by any manifest`);
  }
  if (problems.length > 0) {
    throw new Error(
      `Cluster manifests (${CLUSTER_MANIFEST_DIR}):\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
  }
  return rendered;
}

/** `Deployment gco-system/manifest-processor`, for messages. */
function describe(doc: ManifestDocument): string {
  const metadata = isRecord(doc.metadata) ? doc.metadata : {};
  const name = typeof metadata.name === 'string' ? metadata.name : '?';
  const namespace = typeof metadata.namespace === 'string' ? `${metadata.namespace}/` : '';
  return `${String(doc.kind)} ${namespace}${name}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

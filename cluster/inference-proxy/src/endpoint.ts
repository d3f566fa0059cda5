/**
 * Inference endpoint records (central table TABLES.inferenceEndpoints, pk `endpoint_name`) and the rules
 * the proxy applies to them: state per region, serving-path allowlist, target choice. A record is
 * untrusted input: every field is checked here and a bad one makes the endpoint "invalid" (502), never a
 * crash and never a request to a host the record did not name cleanly. Format: docs/inference-proxy.md.
 */
import { isIPv4 } from 'node:net';

/** Model pods serve HTTPS on 8443 behind their TLS sidecar (docs/inference-proxy.md). */
const DEFAULT_MODEL_PORT = 8443;
const RUNNING = 'running';

/** A serving-path entry: `/a/b` allows exactly `/a/b`; `/a/*` allows `/a` and everything beneath it. */
export type ServingPath = { kind: 'exact'; path: string } | { kind: 'prefix'; path: string };

interface CanaryTarget {
  service: string;
  port: number;
  /** Percentage of requests (0–100) sent to the canary. */
  weight: number;
}

export interface InferenceEndpoint {
  name: string;
  service: string;
  port: number;
  canary: CanaryTarget | undefined;
  /** When set, every request goes here (a per-endpoint router/sidecar) and the canary split is skipped. */
  proxyService: string | undefined;
  servingPaths: readonly ServingPath[];
  healthPath: string | undefined;
  updatedAt: string | undefined;
}

export type EndpointResolution =
  | { kind: 'ready'; endpoint: InferenceEndpoint }
  | { kind: 'not_running'; state: string | undefined }
  | { kind: 'invalid'; reason: string };

export type TargetRole = 'primary' | 'canary' | 'proxy';

export interface UpstreamTarget {
  role: TargetRole;
  host: string;
  port: number;
}

const MAX_SERVING_PATHS = 256;
const MAX_PATH_LENGTH = 1024;
const DNS_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i;
// eslint-disable-next-line no-control-regex -- control characters are exactly what a path may not hold
const PATH_FORBIDDEN = /[\x00-\x20\x7f?#\\%]/;

class InvalidRecord extends Error {}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A Kubernetes service host (DNS name) or an IPv4 address: nothing that could smuggle a port, path or user. */
export function isValidHost(host: string): boolean {
  if (host.length === 0 || host.length > 253) return false;
  if (isIPv4(host)) return true;
  return host.split('.').every((label) => DNS_LABEL.test(label));
}

function host(value: unknown, field: string): string {
  if (typeof value !== 'string' || !isValidHost(value)) {
    throw new InvalidRecord(`${field} must be a DNS name or IPv4 address`);
  }
  return value.toLowerCase();
}

function port(value: unknown, field: string, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 65535) {
    throw new InvalidRecord(`${field} must be an integer port 1–65535`);
  }
  return value;
}

/** A literal path: absolute, no query/fragment/escapes/whitespace, no empty or dot segments. */
function literalPath(value: string, field: string): string {
  if (!value.startsWith('/') || value.length > MAX_PATH_LENGTH || PATH_FORBIDDEN.test(value)) {
    throw new InvalidRecord(`${field} must be an absolute path without query, escapes or whitespace`);
  }
  if (value === '/') return value;
  const segments = value.slice(1).split('/');
  if (segments.some((s, i) => s === '.' || s === '..' || (s === '' && i < segments.length - 1))) {
    throw new InvalidRecord(`${field} must not contain empty, "." or ".." segments`);
  }
  return value;
}

export function parseServingPath(value: unknown, field = 'serving_paths[]'): ServingPath {
  if (typeof value !== 'string') throw new InvalidRecord(`${field} must be a string`);
  if (value === '/*') return { kind: 'prefix', path: '' };
  if (value.endsWith('/*')) return { kind: 'prefix', path: literalPath(value.slice(0, -2), field) };
  if (value.includes('*')) throw new InvalidRecord(`${field} may use "*" only as a final "/*" segment`);
  return { kind: 'exact', path: literalPath(value, field) };
}

function servingPaths(value: unknown): ServingPath[] {
  if (!Array.isArray(value) || value.length > MAX_SERVING_PATHS) {
    throw new InvalidRecord(`serving_paths must be a list of at most ${MAX_SERVING_PATHS} paths`);
  }
  return value.map((v, i) => parseServingPath(v, `serving_paths[${i}]`));
}

function canary(value: unknown, defaultPort: number): CanaryTarget | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw new InvalidRecord('canary must be an object {service, weight}');
  const weight = value.weight;
  if (typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0 || weight > 100) {
    throw new InvalidRecord('canary.weight must be a number 0–100');
  }
  return {
    service: host(value.service, 'canary.service'),
    port: port(value.port, 'canary.port', defaultPort),
    weight,
  };
}

function optionalString(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new InvalidRecord(`${field} must be a string`);
  return value;
}

/**
 * Decides what the proxy may do with a stored record for `region`. The state is checked first: a record
 * that is not running here is "not running" even while its routing fields are still being written.
 */
export function resolveEndpoint(doc: unknown, region: string): EndpointResolution {
  try {
    if (!isObject(doc)) throw new InvalidRecord('record is not an object');
    const name = doc.endpoint_name;
    if (typeof name !== 'string' || name === '') throw new InvalidRecord('endpoint_name must be a string');
    const regions = doc.regions;
    if (!isObject(regions)) throw new InvalidRecord('regions must be an object keyed by region');
    const here = regions[region];
    if (here === undefined || here === null) return { kind: 'not_running', state: undefined };
    if (!isObject(here) || typeof here.state !== 'string') {
      throw new InvalidRecord(`regions.${region}.state must be a string`);
    }
    if (here.state !== RUNNING) return { kind: 'not_running', state: here.state };

    const endpointPort = port(doc.port, 'port', DEFAULT_MODEL_PORT);
    const health = optionalString(doc.health_path, 'health_path');
    return {
      kind: 'ready',
      endpoint: {
        name,
        service: host(doc.service, 'service'),
        port: endpointPort,
        canary: canary(doc.canary, endpointPort),
        proxyService:
          doc.proxy_service === undefined || doc.proxy_service === null
            ? undefined
            : host(doc.proxy_service, 'proxy_service'),
        servingPaths: servingPaths(doc.serving_paths),
        healthPath: health === undefined ? undefined : literalPath(health, 'health_path'),
        updatedAt: optionalString(doc.updated_at, 'updated_at'),
      },
    };
  } catch (error) {
    if (error instanceof InvalidRecord) return { kind: 'invalid', reason: error.message };
    throw error;
  }
}

function servingPathMatches(entry: ServingPath, path: string): boolean {
  if (entry.kind === 'exact') return path === entry.path;
  return entry.path === '' || path === entry.path || path.startsWith(`${entry.path}/`);
}

/** `path` is the decoded upstream path (see paths.ts); the health path is an exact match. */
export function isPathAllowed(endpoint: InferenceEndpoint, path: string): boolean {
  if (endpoint.healthPath !== undefined && path === endpoint.healthPath) return true;
  return endpoint.servingPaths.some((entry) => servingPathMatches(entry, path));
}

/**
 * The service that answers this request: the endpoint's proxy service when it has one (it owns routing,
 * canaries included), else the canary for `weight`% of requests, else the primary service. `random` is
 * drawn only when the split is a real choice (0 < weight < 100), so tests can predict the sequence.
 */
export function chooseTarget(endpoint: InferenceEndpoint, random: () => number): UpstreamTarget {
  if (endpoint.proxyService !== undefined) {
    return { role: 'proxy', host: endpoint.proxyService, port: endpoint.port };
  }
  const c = endpoint.canary;
  if (c && c.weight > 0 && (c.weight >= 100 || random() * 100 < c.weight)) {
    return { role: 'canary', host: c.service, port: c.port };
  }
  return { role: 'primary', host: endpoint.service, port: endpoint.port };
}

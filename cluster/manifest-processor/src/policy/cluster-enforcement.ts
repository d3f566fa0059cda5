/**
 * Layers 2 and 3 of the policy report: the LimitRanges (per-container ceilings) and ResourceQuotas
 * (namespace aggregate ceilings) of the allowed namespaces, read live from the Kubernetes API. A layer the
 * API cannot supply is reported as unavailable; this never throws.
 */
import { errorMessage } from '../../../../contracts/runtime/errors.js';
import {
  ApiException,
  CoreV1Api,
  type KubeConfig,
  type V1LimitRange,
  type V1ResourceQuota,
} from '@kubernetes/client-node';
import { listAllPages, pooledKubeConfig, type KubeListPage } from '../../../shared/kube.js';

interface LayerReport {
  status: 'ok' | 'unavailable';
  error?: string;
  items?: unknown[];
}

export interface ClusterEnforcement {
  limit_ranges: LayerReport;
  resource_quotas: LayerReport;
}

export interface ClusterEnforcementOptions {
  /** Per layer; a slow API server must not hold GET /api/v1/policy (default 5000). */
  timeoutMs?: number;
}

const PAGE_SIZE = 500;

/** `HTTP 403: limitranges is forbidden: …` or the transport error's message. */
function describeKubeError(err: unknown): string {
  if (err instanceof ApiException) {
    let body: unknown = err.body;
    if (typeof body === 'string') {
      try {
        body = JSON.parse(body);
      } catch {
        // A non-JSON body (a proxy's HTML page) says nothing useful beyond the code.
      }
    }
    const message =
      typeof body === 'object' && body !== null && 'message' in body && typeof body.message === 'string'
        ? body.message
        : undefined;
    return message ? `HTTP ${err.code}: ${message}` : `HTTP ${err.code}`;
  }
  return errorMessage(err);
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Lists one resource in every namespace; the first failure makes the whole layer unavailable. */
async function readLayer<T>(
  namespaces: readonly string[],
  operation: string,
  list: (namespace: string, cont: string | undefined) => Promise<KubeListPage<T>>,
  summarise: (item: T) => unknown,
  timeoutMs: number,
): Promise<LayerReport> {
  try {
    const perNamespace = await withTimeout(
      Promise.all(
        namespaces.map((namespace) =>
          listAllPages((cont) => list(namespace, cont)).catch((err: unknown) => {
            throw new Error(`${operation}(${namespace}): ${describeKubeError(err)}`);
          }),
        ),
      ),
      timeoutMs,
      operation,
    );
    return { status: 'ok', items: perNamespace.flat().map(summarise) };
  } catch (err) {
    return { status: 'unavailable', error: errorMessage(err) };
  }
}

/** Drops absent fields so the report shows only what the object sets. */
function defined(entries: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined));
}

function summariseLimitRange(range: V1LimitRange): Record<string, unknown> {
  return {
    namespace: range.metadata?.namespace,
    name: range.metadata?.name,
    limits: (range.spec?.limits ?? []).map((limit) =>
      defined({
        type: limit.type,
        max: limit.max,
        min: limit.min,
        default: limit._default,
        default_request: limit.defaultRequest,
        max_limit_request_ratio: limit.maxLimitRequestRatio,
      }),
    ),
  };
}

function summariseResourceQuota(quota: V1ResourceQuota): Record<string, unknown> {
  return defined({
    namespace: quota.metadata?.namespace,
    name: quota.metadata?.name,
    // status.hard is what the quota controller enforces; spec.hard until it has reconciled.
    hard: quota.status?.hard ?? quota.spec?.hard ?? {},
    used: quota.status?.used ?? {},
    scopes: quota.spec?.scopes,
    scope_selector: quota.spec?.scopeSelector,
  });
}

export async function readClusterEnforcement(
  kubeConfig: KubeConfig,
  namespaces: readonly string[],
  options: ClusterEnforcementOptions = {},
): Promise<ClusterEnforcement> {
  const timeoutMs = options.timeoutMs ?? 5000;
  let core: CoreV1Api;
  try {
    core = pooledKubeConfig(kubeConfig).makeApiClient(CoreV1Api);
  } catch (err) {
    const error = `Kubernetes client: ${describeKubeError(err)}`;
    return {
      limit_ranges: { status: 'unavailable', error },
      resource_quotas: { status: 'unavailable', error },
    };
  }
  const [limitRanges, resourceQuotas] = await Promise.all([
    readLayer(
      namespaces,
      'listNamespacedLimitRange',
      (namespace, cont) => core.listNamespacedLimitRange({ namespace, limit: PAGE_SIZE, _continue: cont }),
      summariseLimitRange,
      timeoutMs,
    ),
    readLayer(
      namespaces,
      'listNamespacedResourceQuota',
      (namespace, cont) => core.listNamespacedResourceQuota({ namespace, limit: PAGE_SIZE, _continue: cont }),
      summariseResourceQuota,
      timeoutMs,
    ),
  ]);
  return { limit_ranges: limitRanges, resource_quotas: resourceQuotas };
}

/**
 * What the conformance tests share: reading a refused call's Kubernetes `Status`, sending a body the
 * typed client would otherwise filter, reading `Warning` headers, unique names, manifests and polling
 * with the target's patience (never fixed sleeps).
 */
import { randomBytes } from 'node:crypto';

import type {
  ConfigurationOptions,
  RequestContext,
  ResponseContext,
  V1Job,
  V1Pod,
} from '@kubernetes/client-node';
import { ApiException, Observable } from '@kubernetes/client-node';

import type { ConformanceTarget } from './target.js';
import { patience } from './target.js';

export const IMAGE = 'public.ecr.aws/docker/library/busybox:1.36';

/** The fields of a `Status` (https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/status/). */
export interface KubeStatus {
  kind?: string;
  status?: string;
  code?: number;
  reason?: string;
  message?: string;
  details?: {
    name?: string;
    kind?: string;
    causes?: { reason?: string; message?: string; field?: string }[];
  };
}

/** Awaits a call that must be refused and returns its HTTP code and parsed `Status` body. */
export async function refusal(call: Promise<unknown>): Promise<{ code: number; status: KubeStatus }> {
  try {
    await call;
  } catch (err) {
    if (!(err instanceof ApiException)) throw err;
    const body: unknown = typeof err.body === 'string' ? JSON.parse(err.body) : err.body;
    return { code: err.code, status: body as KubeStatus };
  }
  throw new Error('expected the API server to refuse the call, but it accepted it');
}

/**
 * Request options that send `body` exactly as given. The typed client serializes a body through its
 * model classes, which silently drop unknown fields (`spec.backofLimit` would never reach the server);
 * this middleware puts the JSON back, as kubectl or any other client would send it.
 */
export function sendingVerbatim(body: unknown): ConfigurationOptions {
  const text = JSON.stringify(body);
  return {
    middleware: [
      {
        pre: (context: RequestContext) => {
          context.setBody(text);
          return new Observable(Promise.resolve(context));
        },
        post: (context: ResponseContext) => new Observable(Promise.resolve(context)),
      },
    ],
    middlewareMergeStrategy: 'append', // keep the configuration's own middleware (authentication)
  };
}

/**
 * The texts of the `Warning` response headers (RFC 7234 §5.5: `299 - "text"`), as the API server sends
 * them (https://kubernetes.io/docs/reference/using-api/api-concepts/#warnings).
 */
export function warningsOf(headers: Record<string, string>): string[] {
  const raw = Object.entries(headers)
    .filter(([name]) => name.toLowerCase() === 'warning')
    .map(([, value]) => value)
    .join(', ');
  const texts: string[] = [];
  for (const m of raw.matchAll(/\d{3} \S+ "((?:[^"\\]|\\.)*)"/g))
    texts.push((m[1] ?? '').replace(/\\(.)/g, '$1'));
  return texts;
}

/** A DNS-1123 name unique to this run. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

/** A batch/v1 Job running `script` in busybox once (backoffLimit 0), labelled for the run's cleanup. */
export function jobManifest(target: ConformanceTarget, name: string, script: string): V1Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: target.namespace, labels: { ...target.labels } },
    spec: {
      backoffLimit: 0,
      template: {
        metadata: { labels: { ...target.labels } },
        spec: {
          restartPolicy: 'Never',
          terminationGracePeriodSeconds: 1,
          containers: [
            {
              name: 'main',
              image: IMAGE,
              command: ['sh', '-c', script],
              resources: { requests: { cpu: '10m', memory: '16Mi' } },
            },
          ],
        },
      },
    },
  };
}

/** A bare Pod running `script` in busybox, labelled for the run's cleanup. */
export function podManifest(target: ConformanceTarget, name: string, script: string): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: target.namespace, labels: { ...target.labels } },
    spec: {
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 1,
      containers: [
        {
          name: 'main',
          image: IMAGE,
          command: ['sh', '-c', script],
          resources: { requests: { cpu: '10m', memory: '16Mi' } },
        },
      ],
    },
  };
}

/** Polls `read` until `done` accepts its value, within the target's patience; the timeout names `what`. */
export async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  what: string,
): Promise<T> {
  const deadline = Date.now() + patience.waitMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, patience.pollMs));
  }
}

/** The pods the Job controller made for Job `name` (its documented `batch.kubernetes.io/job-name` label). */
export async function podsOfJob(target: ConformanceTarget, name: string): Promise<V1Pod[]> {
  const list = await target.core.listNamespacedPod({
    namespace: target.namespace,
    labelSelector: `batch.kubernetes.io/job-name=${name}`,
  });
  return list.items;
}

/** The status of condition `type` of a Job ("True", "False") or undefined when absent. */
export function conditionOf(job: V1Job, type: string): string | undefined {
  return job.status?.conditions?.find((c) => c.type === type)?.status;
}

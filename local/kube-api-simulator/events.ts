// core/v1 Events emitted by the simulated scheduler, kubelet and job controller, in the shape
// `kubectl describe` and the services' event queries expect (involvedObject, source, counts, times).

import type { ResourceRegistry } from './registry.js';
import type { ObjectStore } from './store.js';
import type { KubeObject } from './types.js';
import { nowIso, str } from './types.js';

export interface EventSpec {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  component: string;
  host?: string;
  fieldPath?: string;
}

export class EventRecorder {
  private seq = 0n;

  constructor(
    private readonly store: ObjectStore,
    private readonly registry: ResourceRegistry,
  ) {}

  record(involved: KubeObject, e: EventSpec): void {
    const namespace = involved.metadata.namespace ?? 'default';
    const nsType = this.registry.core('namespaces');
    if (!this.store.has(nsType, undefined, namespace)) return; // namespace is being torn down
    const now = nowIso();
    const involvedObject: Record<string, unknown> = {
      kind: involved.kind,
      namespace: involved.metadata.namespace,
      name: involved.metadata.name,
      uid: str(involved.metadata.uid),
      apiVersion: involved.apiVersion,
      resourceVersion: str(involved.metadata.resourceVersion),
    };
    if (e.fieldPath) involvedObject.fieldPath = e.fieldPath;
    const source: Record<string, string> = { component: e.component };
    if (e.host) source.host = e.host;
    const event: KubeObject = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${involved.metadata.name}.${this.suffix()}`, namespace },
      involvedObject,
      reason: e.reason,
      message: e.message,
      source,
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
      type: e.type,
      eventTime: null,
      reportingComponent: e.component,
      reportingInstance: e.host ?? '',
    };
    this.store.create(this.registry.core('events'), event);
  }

  /** Like client-go's recorder: hex of a nanosecond timestamp, so names sort chronologically. */
  private suffix(): string {
    const nanos = BigInt(Date.now()) * 1_000_000n + (this.seq++ % 1_000_000n);
    return nanos.toString(16);
  }
}

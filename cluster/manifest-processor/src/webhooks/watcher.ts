/**
 * JobEventWatcher: every interval, lists the jobs of the watched namespaces, derives the events each job
 * has reached (events.ts) and enqueues one outbox item per (webhook, job, event) with a deterministic id
 * and a conditional put. Every replica runs one; they all derive the same ids, so each transition is
 * enqueued exactly once however many replicas see it, and a restart re-derives without duplicating.
 */
import { BatchV1Api, type KubeConfig, type V1Job } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { pooledKubeConfig } from '../../../shared/kube.js';
import { PolledTask, PollingLoop } from '../../../shared/polling-loop.js';
import type { WebhookConfig } from './config.js';
import { deliveryId, deriveJobEvents, jobPayload, type DeliveryPayload } from './events.js';
import { pendingDelivery, type DeliveryStore, type Webhook, type WebhookStore } from './store.js';

const PAGE_SIZE = 500;
/** Ids known to be enqueued, so steady-state passes write nothing. Bounded; eviction only costs a write. */
const KNOWN_IDS_MAX = 100_000;
/**
 * A webhook receives transitions from its registration on. Kubernetes timestamps have second precision
 * and clocks drift, so a transition up to this much before created_at still counts.
 */
const REGISTRATION_TOLERANCE_MS = 5_000;

export interface JobEventWatcherOptions {
  kubeConfig: KubeConfig;
  /** Namespaces to watch: the policy's allowed namespaces (jobs can exist nowhere else). */
  namespaces: readonly string[];
  webhooks: WebhookStore;
  deliveries: DeliveryStore;
  config: Pick<WebhookConfig, 'pollIntervalMs' | 'eventMaxAgeMs' | 'retentionDays'>;
  /** Copied into every payload so receivers can tell regions apart (webhooks are global). */
  source?: { region?: string; cluster?: string };
  logger?: Logger;
  now?: () => number;
}

export interface WatchPassResult {
  jobs: number;
  enqueued: number;
}

export class JobEventWatcher extends PolledTask {
  private readonly batch: BatchV1Api;
  private readonly known = new Map<string, true>();
  protected readonly loop: PollingLoop;
  private readonly now: () => number;

  constructor(private readonly opts: JobEventWatcherOptions) {
    super();
    this.batch = pooledKubeConfig(opts.kubeConfig).makeApiClient(BatchV1Api);
    this.now = opts.now ?? Date.now;
    this.loop = new PollingLoop({
      name: 'webhook-job-watcher',
      intervalMs: opts.config.pollIntervalMs,
      pass: async () => {
        await this.runOnce();
      },
      ...(opts.logger ? { logger: opts.logger } : {}),
    });
  }

  private remember(id: string): void {
    this.known.set(id, true);
    if (this.known.size > KNOWN_IDS_MAX) {
      const oldest = this.known.keys().next();
      if (!oldest.done) this.known.delete(oldest.value);
    }
  }

  private async jobsOf(namespace: string): Promise<V1Job[]> {
    const jobs: V1Job[] = [];
    let cont: string | undefined;
    do {
      const page = await this.batch.listNamespacedJob({
        namespace,
        limit: PAGE_SIZE,
        ...(cont ? { _continue: cont } : {}),
      });
      jobs.push(...page.items);
      cont = page.metadata?._continue || undefined;
    } while (cont);
    return jobs;
  }

  /** One pass; exported for tests and for an operator-triggered run. */
  async runOnce(): Promise<WatchPassResult> {
    const webhooks = await this.opts.webhooks.list();
    if (webhooks.length === 0) return { jobs: 0, enqueued: 0 };
    let jobs = 0;
    let enqueued = 0;
    for (const namespace of this.opts.namespaces) {
      let list: V1Job[];
      try {
        list = await this.jobsOf(namespace);
      } catch (error) {
        // One unreadable namespace must not stop events of the others.
        this.opts.logger?.warn({ err: error, namespace }, 'webhook watcher could not list jobs');
        continue;
      }
      jobs += list.length;
      for (const job of list) enqueued += await this.enqueueFor(job, namespace, webhooks);
    }
    if (enqueued > 0) this.opts.logger?.info({ jobs, enqueued }, 'webhook deliveries enqueued');
    return { jobs, enqueued };
  }

  private async enqueueFor(job: V1Job, namespace: string, webhooks: readonly Webhook[]): Promise<number> {
    const uid = job.metadata?.uid;
    if (!uid) return 0;
    const now = this.now();
    let enqueued = 0;
    const events = deriveJobEvents(job, now);
    for (const [order, { event, at }] of events.entries()) {
      if (now - at > this.opts.config.eventMaxAgeMs) continue;
      for (const webhook of webhooks) {
        if (!webhook.events.includes(event)) continue;
        if (webhook.namespace !== null && webhook.namespace !== namespace) continue;
        if (at + REGISTRATION_TOLERANCE_MS < Date.parse(webhook.created_at)) continue;
        const id = deliveryId(webhook.webhook_id, uid, event);
        if (this.known.has(id)) continue;
        const payload: DeliveryPayload = {
          delivery_id: id,
          webhook_id: webhook.webhook_id,
          event,
          timestamp: new Date(at).toISOString(),
          job: jobPayload(job, this.opts.source),
        };
        const record = pendingDelivery({
          id,
          webhookId: webhook.webhook_id,
          event,
          job: { uid, namespace, name: job.metadata?.name ?? '' },
          payload: JSON.stringify(payload),
          now,
          order,
          retentionDays: this.opts.config.retentionDays,
        });
        if (await this.opts.deliveries.enqueue(record)) enqueued += 1;
        this.remember(id);
      }
    }
    return enqueued;
  }
}

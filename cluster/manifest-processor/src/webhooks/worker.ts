/**
 * DeliveryWorker: claims due outbox items (a version-guarded write that also leases them), POSTs each to
 * its webhook, and records the outcome:
 * - 2xx → delivered;
 * - 408, 429, 5xx, timeouts and network/TLS/DNS errors → retried with exponential backoff and jitter until
 *   maxAttempts, then dead;
 * - any other status (4xx, redirects: never followed) or a target the SSRF rules refuse → failed, no retry;
 * - webhook deleted meanwhile → cancelled.
 * Every replica runs one; the claim makes sure only one of them sends a given delivery at a time.
 */
import { backoffDelayMs } from '../../../../contracts/runtime/backoff.js';
import type { Logger } from 'pino';
import { PolledTask, PollingLoop } from '../../../shared/polling-loop.js';
import { postWebhook, type WebhookResult } from './client.js';
import type { WebhookConfig } from './config.js';
import { DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, signatureHeader } from './signature.js';
import type { Lookup } from './ssrf.js';
import type { AttemptRecord, DeliveryRecord, DeliveryStatus, DeliveryStore, WebhookStore } from './store.js';

const USER_AGENT = 'gco-webhooks/1.0';
/** Longest error text kept on an outbox item. */
const MAX_ERROR_CHARS = 500;

export interface DeliveryWorkerOptions {
  webhooks: WebhookStore;
  deliveries: DeliveryStore;
  config: Pick<
    WebhookConfig,
    | 'pollIntervalMs'
    | 'timeoutMs'
    | 'maxAttempts'
    | 'retryBaseMs'
    | 'retryMaxMs'
    | 'leaseMs'
    | 'batchSize'
    | 'allowPrivateTargets'
    | 'workerId'
  >;
  /** Extra trusted CA certificates (PEM) for receivers; the system store otherwise. */
  ca?: string | Buffer | (string | Buffer)[];
  lookup?: Lookup;
  logger?: Logger;
  now?: () => number;
  random?: () => number;
  /** Told every pass's outcomes (WebhookMetrics counts them for the delivery metrics). */
  outcomes?: { record(result: DeliveryPassResult): void };
}

export type DeliveryPassResult = Record<
  Exclude<DeliveryStatus, 'pending' | 'delivering'> | 'retrying',
  number
> & {
  claimed: number;
};

type Outcome =
  { status: 'delivered' | 'failed' | 'dead' | 'cancelled' } | { status: 'retry'; delayMs: number };

/** base · 2^(attempt−1), capped; half of it fixed and half random so retries of many receivers spread out. */
export function backoffMs(
  attempt: number,
  base: number,
  max: number,
  random: () => number = Math.random,
): number {
  return backoffDelayMs(Math.max(0, attempt - 1), { baseMs: base, capMs: max, jitter: 'equal' }, random);
}

export function isRetryableStatus(statusCode: number): boolean {
  return statusCode === 408 || statusCode === 429 || statusCode >= 500;
}

export class DeliveryWorker extends PolledTask {
  protected readonly loop: PollingLoop;
  private readonly now: () => number;
  private readonly random: () => number;

  constructor(private readonly opts: DeliveryWorkerOptions) {
    super();
    this.now = opts.now ?? Date.now;
    this.random = opts.random ?? Math.random;
    // A full batch means more is due: the next pass starts at once.
    this.loop = new PollingLoop({
      name: 'webhook-delivery-worker',
      intervalMs: opts.config.pollIntervalMs,
      pass: async () => (await this.runOnce()).claimed >= opts.config.batchSize,
      ...(opts.logger ? { logger: opts.logger } : {}),
    });
  }

  /** One pass: claim what is due (up to batchSize) and deliver it. */
  async runOnce(): Promise<DeliveryPassResult> {
    const result: DeliveryPassResult = {
      claimed: 0,
      delivered: 0,
      retrying: 0,
      failed: 0,
      dead: 0,
      cancelled: 0,
    };
    const due = await this.opts.deliveries.due(this.now(), this.opts.config.batchSize);
    const claimed: DeliveryRecord[] = [];
    for (const item of due) {
      const mine = await this.claim(item);
      if (mine) claimed.push(mine);
    }
    result.claimed = claimed.length;
    // Deliveries of one job to one webhook go in order (started before completed); others in parallel.
    const groups = new Map<string, DeliveryRecord[]>();
    for (const item of claimed) {
      const key = `${item.webhook_id}/${item.job_uid}`;
      groups.set(key, [...(groups.get(key) ?? []), item]);
    }
    await Promise.all(
      [...groups.values()].map(async (items) => {
        for (const item of items) {
          const status = await this.process(item);
          if (status) result[status] += 1;
        }
      }),
    );
    this.opts.outcomes?.record(result);
    return result;
  }

  private async claim(item: DeliveryRecord): Promise<DeliveryRecord | undefined> {
    const now = this.now();
    return this.opts.deliveries.replace(item, {
      ...item,
      status: 'delivering',
      attempts: item.attempts + 1,
      lease_owner: this.opts.config.workerId,
      lease_expires_at: now + this.opts.config.leaseMs,
      // Invisible to other workers until the lease runs out; due again by itself if this process dies.
      next_attempt_at: now + this.opts.config.leaseMs,
      updated_at: new Date(now).toISOString(),
    });
  }

  private async process(item: DeliveryRecord): Promise<keyof DeliveryPassResult | undefined> {
    const log = this.opts.logger?.child({ delivery_id: item.delivery_id, webhook_id: item.webhook_id });
    try {
      if (item.attempts > this.opts.config.maxAttempts) {
        // Earlier attempts never reported back (the worker died mid-request): stop here.
        return await this.settle(
          item,
          { status: 'dead' },
          undefined,
          'attempts exhausted by interrupted deliveries',
        );
      }
      const webhook = await this.opts.webhooks.get(item.webhook_id);
      if (!webhook) return await this.settle(item, { status: 'cancelled' }, undefined, 'webhook deleted');

      const headers: Record<string, string> = {
        'Content-Type': 'application/json',
        'User-Agent': USER_AGENT,
        [EVENT_HEADER]: item.event,
        [DELIVERY_HEADER]: item.delivery_id,
      };
      if (webhook.secret !== null)
        headers[SIGNATURE_HEADER] = signatureHeader(webhook.secret, item.payload, this.now());
      const result = await postWebhook({
        url: webhook.url,
        body: item.payload,
        headers,
        timeoutMs: this.opts.config.timeoutMs,
        allowPrivateTargets: this.opts.config.allowPrivateTargets,
        ...(this.opts.lookup ? { lookup: this.opts.lookup } : {}),
        ...(this.opts.ca ? { ca: this.opts.ca } : {}),
      });
      const outcome = this.outcomeOf(item, result);
      const status = await this.settle(item, outcome, result);
      log?.info(
        {
          event: item.event,
          attempt: item.attempts,
          outcome: outcome.status,
          status_code: result.kind === 'response' ? result.statusCode : null,
          duration_ms: result.durationMs,
          ...(result.kind === 'response' ? {} : { error: result.error }),
        },
        'webhook delivery attempt',
      );
      return status;
    } catch (error) {
      // Store unavailable: the lease runs out and the item is retried; nothing was lost.
      log?.warn({ err: error }, 'webhook delivery could not be recorded');
      return undefined;
    }
  }

  private outcomeOf(item: DeliveryRecord, result: WebhookResult): Outcome {
    const retry = (): Outcome =>
      item.attempts >= this.opts.config.maxAttempts
        ? { status: 'dead' }
        : {
            status: 'retry',
            delayMs: backoffMs(
              item.attempts,
              this.opts.config.retryBaseMs,
              this.opts.config.retryMaxMs,
              this.random,
            ),
          };
    if (result.kind === 'refused') return { status: 'failed' };
    if (result.kind === 'error') return retry();
    if (result.statusCode >= 200 && result.statusCode < 300) return { status: 'delivered' };
    return isRetryableStatus(result.statusCode) ? retry() : { status: 'failed' };
  }

  private async settle(
    item: DeliveryRecord,
    outcome: Outcome,
    result?: WebhookResult,
    note?: string,
  ): Promise<keyof DeliveryPassResult | undefined> {
    const now = this.now();
    const at = new Date(now).toISOString();
    const statusCode = result?.kind === 'response' ? result.statusCode : null;
    const error =
      result === undefined
        ? (note ?? null)
        : result.kind === 'response'
          ? statusCode !== null && statusCode >= 200 && statusCode < 300
            ? null
            : `HTTP ${statusCode}${result.body ? `: ${result.body}` : ''}`
          : result.error;
    const attempt: AttemptRecord | undefined = result && {
      attempt: item.attempts,
      at,
      worker: this.opts.config.workerId,
      outcome:
        outcome.status === 'retry' ? 'retry' : outcome.status === 'cancelled' ? 'failed' : outcome.status,
      status_code: statusCode,
      error: error?.slice(0, MAX_ERROR_CHARS) ?? null,
      duration_ms: result.durationMs,
    };
    const status: DeliveryStatus = outcome.status === 'retry' ? 'pending' : outcome.status;
    const written = await this.opts.deliveries.replace(item, {
      ...item,
      status,
      next_attempt_at: outcome.status === 'retry' ? now + outcome.delayMs : null,
      lease_owner: null,
      lease_expires_at: null,
      last_error:
        outcome.status === 'delivered' ? null : (error?.slice(0, MAX_ERROR_CHARS) ?? item.last_error),
      last_status_code: statusCode ?? item.last_status_code,
      history: attempt ? [...item.history, attempt] : item.history,
      updated_at: at,
      delivered_at: outcome.status === 'delivered' ? at : item.delivered_at,
    });
    if (!written) {
      // The lease ran out and another worker took the item over; its result stands.
      this.opts.logger?.warn(
        { delivery_id: item.delivery_id },
        'webhook delivery lease lost before settling',
      );
      return undefined;
    }
    return outcome.status === 'retry' ? 'retrying' : outcome.status;
  }
}

/**
 * `--wait`: polls jobs (`GET /api/v1/jobs/{namespace}/{name}`) or queued jobs
 * (`GET /api/v1/queue/jobs/{job_id}`) until each reaches a final state, reporting changes on stderr.
 * Reads only, so every poll may be retried (http.ts). Ctrl-C ends the wait, not the jobs: it names
 * those still running and the command that follows each again (interrupt.ts), then exits 130.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { QueuedJob } from '../contracts/api/manifest-processor-central.js';
import type { JobDetails } from '../contracts/api/manifest-processor.js';
import { apiErrorOf } from './api-errors.js';
import { ApiError } from './errors.js';
import type { ApiClient, ApiReply } from './http.js';
import { untilInterrupted } from './interrupt.js';
import type { Printer, View } from './output.js';
import { recordOf } from './views/common.js';

export const FINAL_JOB_STATES: ReadonlySet<string> = new Set(['succeeded', 'failed']);
export const FINAL_QUEUE_STATES: ReadonlySet<string> = new Set(['succeeded', 'failed', 'cancelled']);

const FIRST_POLL_MS = 250;
const MAX_POLL_MS = 5000;

interface WaitTarget {
  /** How the user knows it, e.g. `svc-jobs/train`. */
  label: string;
  path: string;
}

/** The command that follows a target again: the job's logs until it ends, or the queued job's wait. */
function watchCommandOf(path: string): string {
  const segments = path.split('/').map(decodeURIComponent);
  // /api/v1/jobs/{namespace}/{name} and /api/v1/queue/jobs/{job_id}
  if (segments[3] === 'jobs' && segments.length === 6) {
    return `gco jobs logs ${segments[5] ?? ''} -n ${segments[4] ?? ''} --follow`;
  }
  if (segments[3] === 'queue' && segments[4] === 'jobs') return `gco queue get ${segments[5] ?? ''} --wait`;
  return `gco ${segments.slice(3).join(' ')}`;
}

/** What an interrupted wait says: each target not final yet, its last state, how to follow it. */
function interruptedMessage(targets: readonly WaitTarget[], last: ReadonlyMap<string, string>): string {
  return targets
    .map(
      (t) =>
        `${t.label} keeps running (${last.get(t.path) ?? 'not seen yet'}); follow it with: ${watchCommandOf(t.path)}`,
    )
    .join('\n');
}

interface WaitOptions {
  finalStates: ReadonlySet<string>;
  timeoutMs: number;
}

const statusOf = (reply: ApiReply): string => {
  const { status } = recordOf<JobDetails | QueuedJob>(reply.json);
  return status === undefined ? 'unknown' : String(status);
};

/** Polls until every target is final; resolves with each target's last answer, in order. */
async function waitUntilFinal(
  client: ApiClient,
  targets: readonly WaitTarget[],
  out: Printer,
  opts: WaitOptions,
): Promise<ApiReply[]> {
  const last = new Map<string, string>();
  const finals = new Map<string, ApiReply>();
  const unfinished = () => targets.filter((t) => !finals.has(t.path));
  return untilInterrupted(
    out,
    () => interruptedMessage(unfinished(), last),
    () => pollUntilFinal(client, targets, out, opts, { last, finals }),
  );
}

async function pollUntilFinal(
  client: ApiClient,
  targets: readonly WaitTarget[],
  out: Printer,
  opts: WaitOptions,
  { last, finals }: { last: Map<string, string>; finals: Map<string, ApiReply> },
): Promise<ApiReply[]> {
  const deadline = Date.now() + opts.timeoutMs;
  let interval = FIRST_POLL_MS;
  for (;;) {
    for (const target of targets) {
      if (finals.has(target.path)) continue;
      const reply = await client.send({ method: 'GET', path: target.path });
      if (reply.status !== 200) throw apiErrorOf(reply);
      const status = statusOf(reply);
      if (last.get(target.path) !== status) out.info(`${target.label}: ${status}`);
      last.set(target.path, status);
      if (opts.finalStates.has(status)) finals.set(target.path, reply);
    }
    if (finals.size === targets.length) return targets.map((t) => finals.get(t.path) as ApiReply);
    if (Date.now() >= deadline) {
      const pending = targets
        .filter((t) => !finals.has(t.path))
        .map((t) => `${t.label} (${last.get(t.path) ?? '?'})`);
      throw new ApiError(
        `Gave up waiting after ${Math.round(opts.timeoutMs / 1000)} s: ${pending.join(', ')} not finished`,
        'Raise --wait-timeout, or check later with `gco jobs get` / `gco queue get`.',
      );
    }
    await sleep(Math.min(interval, Math.max(0, deadline - Date.now())));
    interval = Math.min(MAX_POLL_MS, Math.round(interval * 1.5));
  }
}

/** Waits until every target is final, prints each final record with `view`, exits 1 unless all succeeded. */
export async function waitAndReport(
  client: ApiClient,
  targets: readonly WaitTarget[],
  out: Printer,
  opts: WaitOptions & { view: View },
): Promise<void> {
  const finals = await waitUntilFinal(client, targets, out, opts);
  for (const reply of finals) out.final(reply, opts.view);
  requireSucceeded(targets, finals);
}

/** Exit 1 naming every target that did not succeed. */
function requireSucceeded(targets: readonly WaitTarget[], replies: readonly ApiReply[]): void {
  const failed = targets
    .map((t, i) => [t, replies[i]] as const)
    .filter(([, reply]) => reply !== undefined && statusOf(reply) !== 'succeeded')
    .map(([t, reply]) => `${t.label} ${reply ? statusOf(reply) : ''}`);
  if (failed.length > 0) {
    throw new ApiError(
      `Not succeeded: ${failed.join(', ')}`,
      '`gco jobs events NAME` and `gco jobs logs NAME` tell why.',
    );
  }
}

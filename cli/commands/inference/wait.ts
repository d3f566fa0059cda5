/**
 * `gco inference … --wait`: polls GET /api/v1/inference/endpoints/{name} until every region the spec lists
 * reports the desired state for the endpoint's current generation — `running`, or `stopped` when the spec
 * is stopped; after a delete, until the record is gone (404). A region that reports `failed` for the
 * current generation ends the wait with exit 1 naming the region and its reason; so does the timeout,
 * naming what was still pending. Progress (each region's state when it changes) goes to stderr.
 * Only GETs, so every poll may be retried (http.ts). Ctrl-C ends the wait, not the change: it says so
 * and how to follow the endpoint again, then exits 130 (interrupt.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { EndpointRegionStatus, EndpointSpec } from '../../../contracts/inference-endpoints.js';
import { apiErrorOf } from '../../api-errors.js';
import { ApiError } from '../../errors.js';
import type { ApiClient, ApiReply } from '../../http.js';
import { untilInterrupted } from '../../interrupt.js';
import type { Printer } from '../../output.js';
import { recordOf, text } from '../../views/common.js';
import { endpointView, type EndpointView } from '../../views/inference.js';

const FIRST_POLL_MS = 250;
const MAX_POLL_MS = 5000;

export interface EndpointWait {
  /** The endpoint's name, as the user gave it. */
  name: string;
  /** Its GET path. */
  path: string;
  timeoutMs: number;
  /** Wait for the record to disappear (after a delete) rather than for a state. */
  gone: boolean;
}

/** Where one answer leaves the wait. */
interface Progress {
  /** Each listed region's state as shown to the user, e.g. `pending (generation 1 of 2)`. */
  states: Map<string, string>;
  /** Regions not yet in the desired state. */
  pending: string[];
  /** Regions that report `failed` for the current generation, with their reason. */
  failed: [region: string, reason: string][];
}

/** The state of every listed region against the desired state of the endpoint's current generation. */
function progressOf(body: unknown): Progress {
  const endpoint = recordOf<EndpointView>(body);
  const spec = recordOf<EndpointSpec>(endpoint.spec);
  const regions = recordOf<Record<string, EndpointRegionStatus>>(endpoint.regions);
  const generation = endpoint.generation;
  const desired = spec.stopped === true ? 'stopped' : 'running';
  const progress: Progress = { states: new Map(), pending: [], failed: [] };
  for (const region of Array.isArray(spec.regions) ? spec.regions.map(text) : []) {
    const status = recordOf<EndpointRegionStatus>(regions[region]);
    const state = status.state === undefined ? 'not reported' : text(status.state);
    const current = status.observed_generation !== undefined && status.observed_generation === generation;
    progress.states.set(
      region,
      current
        ? state
        : `${state} (generation ${text(status.observed_generation) || '-'} of ${text(generation)})`,
    );
    if (current && state === 'failed')
      progress.failed.push([region, text(status.reason) || 'no reason given']);
    else if (!(current && state === desired && endpoint.deleting !== true)) progress.pending.push(region);
  }
  return progress;
}

/**
 * Polls until the desired state is reached in every listed region (then prints the endpoint) or the
 * record is gone (`gone`); exit 1 on a failed region, on a record being deleted under a non-delete wait,
 * and on the timeout.
 */
export async function waitForEndpoint(client: ApiClient, out: Printer, wait: EndpointWait): Promise<void> {
  const shown = new Map<string, string>();
  const states = () => [...shown].map(([region, state]) => `${region}: ${state}`).join(', ');
  await untilInterrupted(
    out,
    () =>
      `endpoint ${wait.name} keeps ${wait.gone ? 'being deleted' : 'rolling out'}` +
      `${shown.size > 0 ? ` (${states()})` : ''}; follow it with: gco inference status ${wait.name}${wait.gone ? '' : ' --wait'}`,
    () => pollEndpoint(client, out, wait, shown),
  );
}

async function pollEndpoint(
  client: ApiClient,
  out: Printer,
  wait: EndpointWait,
  shown: Map<string, string>,
): Promise<void> {
  const deadline = Date.now() + wait.timeoutMs;
  let interval = FIRST_POLL_MS;
  let progress: Progress | undefined;
  for (;;) {
    const reply = await client.send({ method: 'GET', path: wait.path });
    if (wait.gone && reply.status === 404) {
      out.info(`${wait.name}: deleted`);
      return;
    }
    if (reply.status !== 200) throw apiErrorOf(reply);
    progress = progressOf(reply.json);
    for (const [region, state] of progress.states) {
      if (shown.get(region) !== state) out.info(`${wait.name} ${region}: ${state}`);
      shown.set(region, state);
    }
    failIfFailed(wait, progress, reply);
    if (!wait.gone && progress.pending.length === 0) {
      out.final(reply, endpointView);
      return;
    }
    if (Date.now() >= deadline) throw timedOut(wait, progress);
    await sleep(Math.min(interval, Math.max(0, deadline - Date.now())));
    interval = Math.min(MAX_POLL_MS, Math.round(interval * 1.5));
  }
}

function failIfFailed(wait: EndpointWait, progress: Progress, reply: ApiReply): void {
  if (progress.failed.length > 0) {
    const regions = progress.failed.map(([region, reason]) => `${region} (${reason})`).join(', ');
    throw new ApiError(
      `Endpoint ${wait.name} failed in ${regions}`,
      `\`gco inference status ${wait.name}\` shows every region; fix the cause (e.g. \`update-image\`) or delete it.`,
    );
  }
  if (!wait.gone && recordOf<EndpointView>(reply.json).deleting === true) {
    throw new ApiError(`Endpoint ${wait.name} is being deleted: it will not reach the state waited for`);
  }
}

function timedOut(wait: EndpointWait, progress: Progress): ApiError {
  const seconds = Math.round(wait.timeoutMs / 1000);
  // After a delete every region still reporting is pending; otherwise those not in the desired state.
  const regions = wait.gone ? [...progress.states.keys()] : progress.pending;
  const pending = regions.map((r) => `${r} (${progress.states.get(r) ?? '?'})`);
  const what = wait.gone
    ? `${wait.name} still exists${pending.length > 0 ? `: ${pending.join(', ')}` : ''}`
    : `${wait.name} not ready in ${pending.join(', ')}`;
  return new ApiError(
    `Gave up waiting after ${seconds} s: ${what}`,
    `Raise --wait-timeout, or check later with \`gco inference status ${wait.name}\`.`,
  );
}

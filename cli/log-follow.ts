/**
 * `gco jobs logs --follow`: the API has no streaming log route, so this polls
 * `GET /api/v1/jobs/{ns}/{name}/logs?timestamps=true&since_seconds=…` and prints each line once (lines
 * are keyed by their kubelet timestamp per pod), until the job has finished and its last lines are out.
 * Lines carry the prefix of every log command when several pods speak (log-lines.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { JobDetails, JobLogs } from '../contracts/api/manifest-processor.js';
import { apiErrorOf } from './api-errors.js';
import { FINAL_JOB_STATES } from './job-wait.js';
import { linePrefix } from './log-lines.js';
import { pathOf, type ApiClient } from './http.js';
import type { Printer } from './output.js';
import { recordOf, rowsOf } from './views/common.js';

const POLL_MS = 1000;
const MAX_TAIL = 10000;

export interface FollowOptions {
  namespace: string;
  name: string;
  container?: string;
  tail: number;
  timestamps: boolean;
  pollMs?: number;
}

interface PodCursor {
  /** The newest timestamp printed. */
  last: string;
  /** Lines printed with exactly that timestamp (several lines can share one). */
  atLast: Set<string>;
}

/** Splits `<RFC 3339 timestamp> <text>` as the kubelet writes it with timestamps=true. */
function splitTimestamp(line: string): [string, string] {
  const space = line.indexOf(' ');
  return space === -1 ? [line, ''] : [line.slice(0, space), line.slice(space + 1)];
}

/** The lines of one poll that were not printed yet; advances the cursor. */
export function newLines(cursor: PodCursor, logs: string): string[] {
  const fresh: string[] = [];
  for (const line of logs.split('\n')) {
    if (line === '') continue;
    const [at] = splitTimestamp(line);
    if (at < cursor.last || (at === cursor.last && cursor.atLast.has(line))) continue;
    if (at > cursor.last) {
      cursor.last = at;
      cursor.atLast = new Set();
    }
    cursor.atLast.add(line);
    fresh.push(line);
  }
  return fresh;
}

export async function followJobLogs(client: ApiClient, out: Printer, opts: FollowOptions): Promise<void> {
  const jobPath = pathOf('api', 'v1', 'jobs', opts.namespace, opts.name);
  const cursors = new Map<string, PodCursor>();
  let since: number | undefined;
  for (;;) {
    const job = await client.send({ method: 'GET', path: jobPath });
    if (job.status !== 200) throw apiErrorOf(job);
    const finished = FINAL_JOB_STATES.has(String(recordOf<JobDetails>(job.json).status));
    const polledAt = Date.now();
    const logs = await client.send({
      method: 'GET',
      path: `${jobPath}/logs`,
      query: {
        container: opts.container,
        timestamps: true,
        tail: since === undefined ? opts.tail : MAX_TAIL,
        since_seconds: since === undefined ? undefined : Math.ceil((polledAt - since) / 1000) + 2,
      },
    });
    // 404: no pod yet; 409: every pod still pending. Both pass while the job runs.
    if (logs.status !== 200 && !(logs.status === 404 || logs.status === 409)) throw apiErrorOf(logs);
    if (logs.status === 200) {
      const pods = rowsOf<JobLogs['pods'][number]>(recordOf<JobLogs>(logs.json).pods).filter(
        (p) => typeof p.pod === 'string',
      );
      for (const pod of pods) {
        const name = pod.pod ?? '';
        let cursor = cursors.get(name);
        if (cursor === undefined) cursors.set(name, (cursor = { last: '', atLast: new Set() }));
        for (const line of newLines(cursor, pod.logs ?? '')) {
          const text = opts.timestamps ? line : splitTimestamp(line)[1];
          out.raw(`${pods.length > 1 ? linePrefix(name, pod.container) : ''}${text}\n`);
        }
      }
      since = polledAt;
    }
    // The job was already final before this poll read the logs: nothing more will be written.
    if (finished) return;
    await sleep(opts.pollMs ?? POLL_MS);
  }
}

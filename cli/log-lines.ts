/**
 * One shape for every log command (`jobs logs`, `jobs logs --follow`, `jobs pod-logs`, `queue logs`):
 * - `-o json|yaml`: the job-logs answer, `{job, namespace, pods: [{pod, container, logs}], pending_pods}`
 *   (`pod-logs` wraps its one pod in it);
 * - text: the lines themselves; when more than one pod speaks, each line starts with
 *   `[pod/<pod>/<container>] `, kubectl's `logs --prefix` format
 *   (https://github.com/kubernetes/kubectl/blob/master/pkg/cmd/logs/logs.go, addPrefixIfNeeded).
 */
import type { JobLogs, PodLogs } from '../contracts/api/manifest-processor.js';
import type { View } from './output.js';
import { recordOf, rowsOf, text, viewOf, type Fields } from './views/common.js';

type PodLog = JobLogs['pods'][number];

/** kubectl's `--prefix`: which pod and container a line came from. */
export const linePrefix = (pod: string, container: string | undefined): string =>
  `[pod/${pod}${container === undefined || container === '' ? '' : `/${container}`}] `;

/** A pod's log text as lines, each prefixed when several pods share the output. */
function podLines(pod: Fields<PodLog>, prefixed: boolean): string {
  const logs = text(pod.logs);
  if (logs === '') return '';
  const prefix = prefixed ? linePrefix(text(pod.pod), text(pod.container)) : '';
  return `${logs
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => `${prefix}${line}`)
    .join('\n')}\n`;
}

export const logsView: View = viewOf<JobLogs>({
  render(body) {
    const pods = rowsOf<PodLog>(body.pods);
    return pods.map((pod) => podLines(pod, pods.length > 1)).join('');
  },
});

/** A pod-logs answer in the job-logs shape (one pod, none pending). */
export function asJobLogs(body: unknown): Fields<JobLogs> {
  const pod = recordOf<PodLogs>(body);
  return {
    job: pod.job,
    namespace: pod.namespace,
    pods: [{ pod: text(pod.pod), container: text(pod.container), logs: text(pod.logs) }],
    pending_pods: 0,
  };
}

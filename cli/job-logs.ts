/**
 * What every command that prints a Kubernetes Job's logs does (`jobs logs`, `queue logs`): one fetch of
 * the job-logs route printed in the one log shape (log-lines.ts), or, with `--follow`, new lines until the
 * Job has finished (log-follow.ts), where Ctrl-C says how to follow the Job again (interrupt.ts).
 */
import type { CommandContext } from './context.js';
import { pathOf, type ApiClient } from './http.js';
import { untilInterrupted } from './interrupt.js';
import { followJobLogs } from './log-follow.js';
import { logsView } from './log-lines.js';

/** The log options the commands share (`--previous` only where the command offers it). */
export interface JobLogOptions {
  container?: string;
  tail: number;
  previous?: boolean;
  since?: number;
  timestamps?: boolean;
  follow?: boolean;
}

/** Prints the logs of Job `namespace/name`; `followAgain` is the command line that follows it again. */
export async function printJobLogs(
  ctx: CommandContext,
  client: ApiClient,
  job: { namespace: string; name: string },
  options: JobLogOptions,
  followAgain: string,
): Promise<void> {
  const { namespace, name } = job;
  if (options.follow === true) {
    await untilInterrupted(
      ctx.out,
      () => `${namespace}/${name} keeps running; follow it with: ${followAgain}`,
      () =>
        followJobLogs(client, ctx.out, {
          namespace,
          name,
          ...(options.container !== undefined ? { container: options.container } : {}),
          tail: options.tail,
          timestamps: options.timestamps === true,
        }),
    );
    return;
  }
  await ctx.call(
    client,
    {
      method: 'GET',
      path: pathOf('api', 'v1', 'jobs', namespace, name, 'logs'),
      query: {
        container: options.container,
        tail: options.tail,
        previous: options.previous === true ? true : undefined,
        since_seconds: options.since,
        timestamps: options.timestamps === true ? true : undefined,
      },
    },
    logsView,
  );
}

/**
 * `gco jobs pod-logs`: the logs of one pod of a job, in the shape of `jobs logs` (log-lines.ts): the
 * answer's one pod as the `pods` list, so scripts read both the same way.
 */
import { Command } from '@commander-js/extra-typings';
import { examples, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import { integerIn } from '../../options.js';
import { apiErrorOf } from '../../api-errors.js';
import { asJobLogs, logsView } from '../../log-lines.js';
import { jobNameOf, jobPath, namespaceOption, type JobRef } from './common.js';

interface PodLogsOptions extends JobRef {
  pod: string;
  container?: string;
  tail: number;
  previous?: boolean;
}

export function podLogsCommand(kit: CommandKit) {
  return examples(
    new Command('pod-logs')
      .description('print the logs of one pod of a job')
      .argument('<name>', 'job name (NAME or job/NAME)')
      .argument('<pod>', 'pod name (see `gco jobs pods`)')
      .addOption(namespaceOption())
      .option('-c, --container <container>', 'container')
      .option('--tail <lines>', 'last lines', integerIn(1, 10000), 100)
      .option('--previous', 'the previous instance of a restarted container')
      .action(async (name, pod, opts, cmd) =>
        runPodLogs({ ...opts, name: jobNameOf(name), pod }, await kit.context(cmd)),
      ),
    'gco jobs pod-logs train train-x7k2p --tail 50',
  );
}

async function runPodLogs(options: PodLogsOptions, ctx: CommandContext): Promise<void> {
  const client = await ctx.control();
  const reply = await client.send({
    method: 'GET',
    path: jobPath(options.namespace, options.name, 'pods', options.pod, 'logs'),
    query: {
      container: options.container,
      tail: options.tail,
      previous: options.previous === true ? true : undefined,
    },
  });
  if (reply.status !== 200) throw apiErrorOf(reply);
  ctx.out.value(asJobLogs(reply.json), logsView);
}

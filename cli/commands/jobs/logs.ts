/**
 * `gco jobs logs`: the logs of a job's started pods, once or followed until the job finishes; one shape
 * for every log command (log-lines.ts).
 */
import { Command, Option } from '@commander-js/extra-typings';
import { examples, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import { untilInterrupted } from '../../interrupt.js';
import { followJobLogs } from '../../log-follow.js';
import { logsView } from '../../log-lines.js';
import { durationIn, integerIn } from '../../options.js';
import { jobPath, namespaceOption, type JobRef } from './common.js';

interface LogsOptions extends JobRef {
  container?: string;
  tail: number;
  previous?: boolean;
  since?: number;
  timestamps?: boolean;
  follow?: boolean;
}

export function logsCommand(kit: CommandKit) {
  return examples(
    new Command('logs')
      .description("print the logs of a job's started pods")
      .argument('<name>', 'job name')
      .addOption(namespaceOption())
      .option('-c, --container <container>', 'container (default: the pod’s default container)')
      .option('--tail <lines>', 'last lines per pod', integerIn(1, 10000), 100)
      .option('--previous', 'the previous instance of a restarted container')
      .option(
        '--since <duration>',
        'only lines newer than this, e.g. 30s, 5m, 1h, 2d',
        durationIn(1, Number.MAX_SAFE_INTEGER),
      )
      .option('--timestamps', 'prefix each line with its timestamp')
      .addOption(
        new Option('-f, --follow', 'keep printing new lines until the job finishes (prints text)').conflicts([
          'previous',
          'since',
        ]),
      )
      .action(async (name, opts, cmd) => runLogs({ ...opts, name }, await kit.context(cmd))),
    'gco jobs logs train --tail 20',
    'gco jobs logs train --follow',
    'gco jobs logs train --since 1h',
  );
}

async function runLogs(options: LogsOptions, ctx: CommandContext): Promise<void> {
  const client = await ctx.control();
  if (options.follow === true) {
    await untilInterrupted(
      ctx.out,
      () =>
        `${options.namespace}/${options.name} keeps running; follow it with: gco jobs logs ${options.name} -n ${options.namespace} --follow`,
      () =>
        followJobLogs(client, ctx.out, {
          namespace: options.namespace,
          name: options.name,
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
      path: jobPath(options.namespace, options.name, 'logs'),
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

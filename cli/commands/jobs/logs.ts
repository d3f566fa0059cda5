/**
 * `gco jobs logs`: the logs of a job's started pods, once or followed until the job finishes (job-logs.ts,
 * shared with `queue logs`).
 */
import { Command, Option } from '@commander-js/extra-typings';
import { examples, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import { printJobLogs, type JobLogOptions } from '../../job-logs.js';
import { durationIn, integerIn } from '../../options.js';
import { jobNameOf, namespaceOption, type JobRef } from './common.js';

type LogsOptions = JobRef & JobLogOptions;

export function logsCommand(kit: CommandKit) {
  return examples(
    new Command('logs')
      .description("print the logs of a job's started pods")
      .argument('<name>', 'job name (NAME or job/NAME)')
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
      .action(async (name, opts, cmd) => runLogs({ ...opts, name: jobNameOf(name) }, await kit.context(cmd))),
    'gco jobs logs train --tail 20',
    'gco jobs logs train --follow',
    'gco jobs logs train --since 1h',
  );
}

async function runLogs(options: LogsOptions, ctx: CommandContext): Promise<void> {
  const client = await ctx.control();
  await printJobLogs(
    ctx,
    client,
    options,
    options,
    `gco jobs logs ${options.name} -n ${options.namespace} --follow`,
  );
}

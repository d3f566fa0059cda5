/**
 * `gco completion bash|zsh`: prints the completion script for the shell (completion.ts). Its hidden
 * `__names RESOURCE` verb is what the script runs on Tab where a command takes a name (completion-names.ts):
 * the names one per line, at once or not at all: each request is sent once (no retry, no backoff: a Tab
 * waits for no second attempt) and the whole lookup has a short budget; offline, without credentials,
 * past the budget or on any error it prints nothing and exits 0, so the shell simply offers nothing.
 */
import { Argument, Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { examples, globalOptionsOf } from '../command-kit.js';
import { bashCompletion, zshCompletion } from '../completion.js';
import { NAMED_RESOURCES, resourceNames } from '../completion-names.js';
import { Session } from '../context.js';
import type { CliIo } from '../io.js';
import { NO_RETRY } from '../retry.js';

/** The budget of a whole completion lookup (credentials, discovery, the list), and of each request in it. */
const NAMES_BUDGET_SECONDS = 2;

export function completionCommand(program: CommandUnknownOpts, io: CliIo): CommandUnknownOpts {
  const completion = examples(
    new Command('completion')
      .description('print the shell completion script')
      .addArgument(new Argument('<shell>', 'bash or zsh').choices(['bash', 'zsh'] as const))
      .action((shell) => {
        io.stdout.write(shell === 'bash' ? bashCompletion(program) : zshCompletion(program));
      }),
    'source <(gco completion bash)      # in ~/.bashrc',
    'source <(gco completion zsh)       # in ~/.zshrc',
  );
  completion.addCommand(
    examples(
      new Command('__names')
        .description('the names of a resource, one a line (used by the completion script)')
        .addArgument(new Argument('<resource>').choices(NAMED_RESOURCES))
        .option('-n, --namespace <namespace>', 'namespace of namespaced resources')
        .action(async (resource, opts, cmd) => {
          const session = new Session(io);
          const lookup = async () => {
            const ctx = await session.contextFor(
              {
                ...globalOptionsOf(cmd),
                timeout: NAMES_BUDGET_SECONDS,
                output: 'json',
                quiet: true,
                verbose: false,
              },
              NO_RETRY,
            );
            return resourceNames(ctx, resource, opts.namespace);
          };
          let budget: NodeJS.Timeout | undefined;
          const outOfTime = new Promise<string[]>((resolve) => {
            budget = setTimeout(() => resolve([]), NAMES_BUDGET_SECONDS * 1000);
          });
          try {
            const names = await Promise.race([lookup(), outOfTime]);
            if (names.length > 0) io.stdout.write(`${names.join('\n')}\n`);
          } catch {
            // Completion offers nothing rather than an error in the middle of the command line.
          } finally {
            clearTimeout(budget);
            // Also ends what is still under way past the budget (sockets, CloudFormation clients).
            session.close();
          }
        }),
      'gco --local completion __names job -n svc-jobs',
    ),
    { hidden: true },
  );
  return completion;
}

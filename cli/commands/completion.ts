/**
 * `gco completion bash|zsh`: prints the completion script for the shell (completion.ts). Its hidden
 * `__names RESOURCE` verb is what the script runs on Tab where a command takes a name (completion-names.ts):
 * the names one per line, within a few seconds or not at all — offline, without credentials or on any
 * error it prints nothing and exits 0, so the shell simply offers nothing.
 */
import { Argument, Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { examples, globalOptionsOf } from '../command-kit.js';
import { bashCompletion, zshCompletion } from '../completion.js';
import { NAMED_RESOURCES, resourceNames } from '../completion-names.js';
import { Session } from '../context.js';
import type { CliIo } from '../io.js';

/** Per-request timeout of a completion lookup, in seconds (a Tab must not hang the shell). */
const NAMES_TIMEOUT_SECONDS = 3;

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
          try {
            const ctx = await session.contextFor({
              ...globalOptionsOf(cmd),
              timeout: NAMES_TIMEOUT_SECONDS,
              output: 'json',
              quiet: true,
              verbose: false,
            });
            const names = await resourceNames(ctx, resource, opts.namespace);
            if (names.length > 0) io.stdout.write(`${names.join('\n')}\n`);
          } catch {
            // Completion offers nothing rather than an error in the middle of the command line.
          } finally {
            session.close();
          }
        }),
      'gco --local completion __names job -n svc-jobs',
    ),
    { hidden: true },
  );
  return completion;
}

/** `gco completion bash|zsh`: prints the completion script for the shell (completion.ts). */
import { Argument, Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { examples } from '../command-kit.js';
import { bashCompletion, zshCompletion } from '../completion.js';
import type { CliIo } from '../io.js';

export function completionCommand(program: CommandUnknownOpts, io: CliIo): CommandUnknownOpts {
  return examples(
    new Command('completion')
      .description('print the shell completion script')
      .addArgument(new Argument('<shell>', 'bash or zsh').choices(['bash', 'zsh'] as const))
      .action((shell) => {
        io.stdout.write(shell === 'bash' ? bashCompletion(program) : zshCompletion(program));
      }),
    'source <(gco completion bash)      # in ~/.bashrc',
    'source <(gco completion zsh)       # in ~/.zshrc',
  );
}

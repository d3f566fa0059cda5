/**
 * What every command module gets: the run's context for an action, and the help conventions (every
 * command's `--help` ends with at least one example; test/unit/cli/arguments.test.ts checks it).
 */
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { CommandContext } from './context.js';
import type { RawGlobalOptions } from './options.js';

export interface CommandKit {
  /** The run's context, from the global options as given to `cmd` (or to its parents). */
  context(cmd: CommandUnknownOpts): Promise<CommandContext>;
}

export function globalOptionsOf(cmd: CommandUnknownOpts): RawGlobalOptions {
  // Commander merges the options of the command and all its parents; the global ones are declared on
  // the root program with exactly the RawGlobalOptions keys (program.ts).
  return cmd.optsWithGlobals();
}

/** Appends an "Examples:" section to the command's help. */
export function examples<T extends CommandUnknownOpts>(cmd: T, ...lines: string[]): T {
  cmd.addHelpText('after', `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`);
  return cmd;
}

/** Adds the verbs to their group, in help order; returns the group. */
export function withSubcommands<T extends CommandUnknownOpts>(
  group: T,
  verbs: readonly CommandUnknownOpts[],
): T {
  for (const verb of verbs) group.addCommand(verb);
  return group;
}

/** The namespace jobs run in when none is given (the seed's default job namespace). */
export const DEFAULT_JOB_NAMESPACE = 'svc-jobs';

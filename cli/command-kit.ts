/**
 * What every command module gets: the run's context for an action, and the help conventions (every
 * command's `--help` ends with at least one example; test/unit/cli/arguments.test.ts checks it).
 */
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { CommandContext, GlobalFlags } from './context.js';
import { UsageError } from './errors.js';

export interface CommandKit {
  /** The run's context, from the global options as given to `cmd` (or to its parents). */
  context(cmd: CommandUnknownOpts): Promise<CommandContext>;
}

export function globalOptionsOf(cmd: CommandUnknownOpts): GlobalFlags {
  // Commander merges the options of the command and all its parents; the global ones are declared on
  // the root program with exactly the GlobalFlags keys (program.ts).
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

/**
 * A resource named on the command line, bare (`train`) or as `-o name` prints it (`job/train`), as
 * kubectl takes `TYPE/NAME` (https://kubernetes.io/docs/reference/kubectl/#resource-types); `kinds` are
 * the spellings of the command's own kind, the first one as `-o name` prints it; `placeholder` is what the
 * bare form is (`NAME`, `ID`). Names and ids never contain `/`, so a slash means a kind: another kind is a
 * usage error (exit 2) naming both, before any request.
 */
export function bareName(arg: string, kinds: readonly string[], placeholder = 'NAME'): string {
  const slash = arg.indexOf('/');
  if (slash < 0) return arg;
  const expected = kinds[0] ?? 'resource';
  const kind = arg.slice(0, slash).toLowerCase();
  const name = arg.slice(slash + 1);
  const hint = `give ${placeholder} or ${expected}/${placeholder} (as \`-o name\` prints it)`;
  if (name === '' || name.includes('/')) {
    throw new UsageError(
      `"${arg}" is not ${article(expected)} ${expected} ${placeholder.toLowerCase()}`,
      hint,
    );
  }
  if (!kinds.includes(kind)) {
    throw new UsageError(
      `resource type mismatch: "${arg}" is ${article(kind)} ${kind}, not ${article(expected)} ${expected}`,
      hint,
    );
  }
  return name;
}

const article = (word: string) => (/^[aeiou]/i.test(word) ? 'an' : 'a');

/**
 * `gco`'s entry: parses the command line, runs the command, and turns every outcome into an exit code
 * (errors.ts): usage errors from commander are 2, errors the commands throw carry their own code, and
 * anything unexpected is 1 with its stack.
 */
import { CommanderError } from '@commander-js/extra-typings';
import { Session } from './context.js';
import { globalOptionsOf, type CommandKit } from './command-kit.js';
import { CliError, EXIT } from './errors.js';
import { processIo, type CliIo } from './io.js';
import { rejectInapplicableOptions } from './options.js';
import { createProgram } from './program.js';

/** Commander outcomes that are not failures. */
const COMMANDER_SUCCESS = new Set(['commander.helpDisplayed', 'commander.version']);

export async function main(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const session = new Session(io);
  const kit: CommandKit = { context: (cmd) => session.contextFor(globalOptionsOf(cmd)) };
  try {
    await createProgram(io, kit)
      .hook('preAction', rejectInapplicableOptions)
      .parseAsync([...argv], { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    return report(error, io, session.verbose);
  } finally {
    session.close();
  }
}

/**
 * The cause on the first line, what to do on the next, then — only with `-v` — the details (the API's
 * whole answer, a signature error's canonical request), so the fix is never below a wall of text.
 */
function report(error: unknown, io: CliIo, verbose: boolean): number {
  if (error instanceof CommanderError) {
    // Commander has already written its message (and the help, when that was the outcome).
    return COMMANDER_SUCCESS.has(error.code) ? EXIT.ok : EXIT.usage;
  }
  if (error instanceof CliError) {
    io.stderr.write(`gco: ${error.message}\n`);
    if (error.hint !== undefined) io.stderr.write(`hint: ${error.hint}\n`);
    if (error.details !== undefined && error.details.trim() !== '') {
      io.stderr.write(
        verbose ? `details:\n${error.details.replace(/^/gm, '  ').trimEnd()}\n` : '(-v prints the details)\n',
      );
    }
    return error.exitCode;
  }
  io.stderr.write(
    `gco: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  return EXIT.api;
}

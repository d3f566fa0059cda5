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
    return report(error, io);
  } finally {
    session.close();
  }
}

function report(error: unknown, io: CliIo): number {
  if (error instanceof CommanderError) {
    // Commander has already written its message (and the help, when that was the outcome).
    return COMMANDER_SUCCESS.has(error.code) ? EXIT.ok : EXIT.usage;
  }
  if (error instanceof CliError) {
    io.stderr.write(`gco: ${error.message}\n`);
    if (error.hint !== undefined) io.stderr.write(`hint: ${error.hint}\n`);
    return error.exitCode;
  }
  io.stderr.write(
    `gco: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  return EXIT.api;
}

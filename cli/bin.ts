/** The executable's program (bundled and started by cli/gco.mjs): runs `main` on the process's own streams. */
import { main } from './main.js';

// `gco … | head` closes stdout early: stop quietly instead of failing on EPIPE.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

process.exitCode = await main(process.argv.slice(2));

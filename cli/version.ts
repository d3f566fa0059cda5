/** The version `gco --version` prints: the package's own (bundled in, so it cannot drift from package.json). */
import packageJson from '../package.json' with { type: 'json' };

export const VERSION: string = packageJson.version;

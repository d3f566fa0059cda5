// CDK CLI plugin entry: the CLI require()s plugins, and the plugin is TypeScript in an ESM package, so tsx
// compiles it on load. Load with `--plugin "$PWD/bin/availability-zone-ids-plugin.cjs"` (`npm run cdk`
// does): the CLI resolves a relative plugin path from its own install directory, not the project.
/* global require, module, __filename */
/* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access -- a CommonJS shim; the typed plugin is the .ts file */
const { require: tsxRequire } = require('tsx/cjs/api');

module.exports = tsxRequire('./availability-zone-ids-lookup.ts', __filename).plugin;

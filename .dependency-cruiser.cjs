// The import rules between the top-level folders (ARCHITECTURE.md, "Layout"), checked in `npm run lint`:
// - contracts/ is the ground floor: lib/ (CDK app), lambda/, cluster/ (services) and cli/ import it and npm
//   packages, never each other; contracts/ imports nothing of theirs;
// - contracts/ outside contracts/runtime/ is framework-free (node: built-ins only), so every side can load it;
// - product code never imports the local platform (local/ stands in for AWS and Kubernetes around it);
// - no import cycle between any two files.
const PRODUCT = ['lib', 'lambda', 'cluster', 'cli'];
const NOT_PRODUCT = ['local', 'bin', 'test', 'bench'];

/** `folder` may import only what is not listed in `forbidden` (and itself, contracts/ and npm packages). */
const floorRule = (folder, forbidden, comment) => ({
  name: folder === 'contracts' ? 'contracts-are-the-ground-floor' : `no-sideways-from-${folder}`,
  comment,
  severity: 'error',
  from: { path: `^${folder}/` },
  to: { path: `^(${forbidden.join('|')})/` },
});

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...PRODUCT.map((folder) =>
      floorRule(
        folder,
        [...PRODUCT.filter((other) => other !== folder), ...NOT_PRODUCT],
        `${folder}/ imports only contracts/, its own folder and npm packages (ARCHITECTURE.md, "Layout").`,
      ),
    ),
    floorRule(
      'contracts',
      [...PRODUCT, ...NOT_PRODUCT],
      'contracts/ is what the product folders agree on: it imports none of them.',
    ),
    {
      name: 'contracts-are-framework-free',
      comment:
        'contracts/ (outside contracts/runtime/) uses node: built-ins only: no AWS SDK, CDK, Fastify or other package.',
      severity: 'error',
      from: { path: '^contracts/', pathNot: '^contracts/runtime/' },
      // The one exception: typebox, a JSON Schema builder with no framework behind it, so the API response
      // schemas (contracts/api/) and their static types are shared by the services, the CLI and the tests.
      to: {
        dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'],
        pathNot: '(^|/)node_modules/typebox/',
      },
    },
    {
      name: 'no-circular',
      comment: 'No import cycle between files: a cycle makes load order matter and layers meaningless.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // node_modules is not excluded (only not followed), so the framework-free rule sees npm imports.
    exclude: { path: '(^|/)(cdk\\.out|\\.local)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
    reporterOptions: {
      archi: {
        collapsePattern: '^(contracts/runtime|contracts|lib|lambda|cluster|cli|local|bin|bench|test)/',
      },
    },
  },
};

// Native ESM: @kubernetes/client-node 1.x is ESM-only, so jest runs with --experimental-vm-modules
// (see package.json "test:jest") and ts-jest emits ES modules. Type checking is `npm run typecheck`;
// ts-jest only transpiles (isolatedModules) to keep the suite fast on two cores.
//
// One project per kind of suite, so each can run alone (`npm run test:unit`, `test:infra`, ...);
// `npm run test:jest` runs them all. Every test file belongs to exactly one project.

/** What every project shares: the ESM transform and the ignores (projects inherit none of it). */
const base = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] },
  testPathIgnorePatterns: ['/node_modules/', '/cdk.out/'],
  modulePathIgnorePatterns: ['<rootDir>/cdk.out/', '<rootDir>/.local/'],
};

// Suites under test/unit that start a process (bash, python3, node, docker) or listen on a socket:
// they run with the integration suites so that the unit project stays pure and fast.
const UNIT_WITH_IO = [
  'test/unit/availability-zone-ids-plugin.test.ts',
  'test/unit/cli/completion.test.ts',
  'test/unit/cost/opencost.test.ts',
  'test/unit/dockerfiles.test.ts',
  'test/unit/envelope.test.ts',
  'test/unit/images-build.test.ts',
  'test/unit/internal-ca.test.ts',
  'test/unit/service-framework.test.ts',
  'test/unit/tls.test.ts',
  'test/unit/webhooks/client.test.ts',
];

/** @type {import('jest').Config} */
export default {
  projects: [
    {
      ...base,
      displayName: 'unit',
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
      testPathIgnorePatterns: [...base.testPathIgnorePatterns, ...UNIT_WITH_IO.map((f) => `<rootDir>/${f}`)],
    },
    // CDK synth of the stacks: seconds per configuration.
    { ...base, displayName: 'infra', testMatch: ['<rootDir>/test/infra/**/*.test.ts'] },
    {
      ...base,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts', ...UNIT_WITH_IO.map((f) => `<rootDir>/${f}`)],
    },
    // Generated requests against the emulated edge and the services.
    { ...base, displayName: 'fuzz', testMatch: ['<rootDir>/test/fuzz/**/*.test.ts'] },
    // The local platform (or `npm start` itself) end to end.
    { ...base, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.test.ts'] },
    // Platform-relevant Kubernetes behaviours against the simulator, or a real cluster when KUBECONFIG
    // and GCO_CONFORMANCE_NAMESPACE are set (docs/conformance.md); setup/teardown own that namespace.
    {
      ...base,
      displayName: 'conformance',
      testMatch: ['<rootDir>/test/conformance/**/*.test.ts'],
      globalSetup: '<rootDir>/test/conformance/global-setup.ts',
      globalTeardown: '<rootDir>/test/conformance/global-teardown.ts',
    },
  ],
  // A global option: jest ignores it inside a project.
  testTimeout: 30000,
  // One worker per core (jest's default leaves one core idle); suites use random ports and own temp dirs.
  maxWorkers: '100%',
};

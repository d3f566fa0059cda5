// Native ESM: @kubernetes/client-node 1.x is ESM-only, so jest runs with --experimental-vm-modules
// (see package.json "test:jest") and ts-jest emits ES modules. Type checking is `npm run typecheck`;
// ts-jest only transpiles (isolatedModules) to keep the suite fast on two cores.
/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/cdk.out/'],
  modulePathIgnorePatterns: ['<rootDir>/cdk.out/', '<rootDir>/.local/'],
  testTimeout: 30000,
  // One worker per core (jest's default leaves one core idle); suites use random ports and own temp dirs.
  maxWorkers: '100%',
};

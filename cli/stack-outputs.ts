/**
 * The CloudFormation stacks and outputs `gco` discovers its APIs from (lib/stacks/*: the names must match
 * what they synthesize; test/integration/cli/discovery.test.ts reads them from the synthesized templates).
 */
export const STACK_OUTPUTS = {
  /** `<project>-global` in the global region. */
  globalApiUrl: 'GlobalApiUrl',
  /** `<project>-<region>` in each deployment region. */
  regionalApiUrl: 'RegionalApiUrl',
  /** `<project>-analytics` in the analytics region (the global region unless configured otherwise). */
  analyticsApiUrl: 'AnalyticsApiUrl',
} as const;

export const globalStackName = (project: string) => `${project}-global`;
export const regionalStackName = (project: string, region: string) => `${project}-${region}`;
export const analyticsStackName = (project: string) => `${project}-analytics`;

import { describe, expect, test } from '@jest/globals';
import { loadCostMonitorConfig } from '../../../cluster/cost-monitor/src/config.js';

describe('loadCostMonitorConfig', () => {
  const base = { COST_REPORTS_BUCKET: 'b', COST_REPORTS_TABLE: 't' };

  test('defaults', () => {
    expect(loadCostMonitorConfig({ ...base, REGION: 'us-east-1', CLUSTER_NAME: 'c' })).toEqual({
      region: 'us-east-1',
      clusterName: 'c',
      opencostUrl: 'http://opencost.opencost.svc.cluster.local:9003',
      opencostTimeoutMs: 20_000,
      bucket: 'b',
      table: 't',
      intervalMinutes: 60,
      settleMinutes: 5,
    });
  });

  test('names every problem', () => {
    expect(() => loadCostMonitorConfig({})).toThrow(
      /COST_REPORTS_BUCKET: required[\s\S]*COST_REPORTS_TABLE: required/,
    );
    expect(() => loadCostMonitorConfig({ ...base, REPORT_INTERVAL_MINUTES: '7' })).toThrow(
      /must divide 1440/,
    );
    expect(() => loadCostMonitorConfig({ ...base, REPORT_INTERVAL_MINUTES: '2' })).toThrow(
      /REPORT_INTERVAL_MINUTES/,
    );
    expect(() => loadCostMonitorConfig({ ...base, OPENCOST_URL: 'opencost:9003' })).toThrow(/OPENCOST_URL/);
    expect(loadCostMonitorConfig({ ...base, REPORT_INTERVAL_MINUTES: '15' }).intervalMinutes).toBe(15);
  });
});

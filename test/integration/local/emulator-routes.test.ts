/**
 * Resource matching of the emulator, on the platform's real API definitions: literal segments win over
 * parameters, `{proxy+}` takes the rest, dead ends backtrack, and a resource that lacks the method does
 * not fall back to a broader one (API Gateway's 403 "Missing Authentication Token").
 */
import { describe, expect, test } from '@jest/globals';
import {
  analyticsApiDefinition,
  globalApiDefinition,
  regionalApiDefinition,
} from '../../../contracts/api-routes.js';
import { loadConfig } from '../../../lib/config.js';
import { RouteTable } from '../../../local/api-gateway-emulator/routes.js';

const config = loadConfig({ regions: ['us-east-1'], analytics_api: { enabled: true } });
const global = new RouteTable(globalApiDefinition(config));
const regional = new RouteTable(regionalApiDefinition(config));
const analytics = new RouteTable(analyticsApiDefinition(config));

const matched = (table: RouteTable, method: string, path: string) => {
  const m = table.match(method, path);
  return m.kind === 'matched'
    ? { operation: m.route.operationId, resource: m.resourcePath, params: m.pathParameters }
    : { missing: m.resourcePath ?? null };
};

describe('global API', () => {
  test('an aggregate route beats the control-plane catch-all', () => {
    expect(matched(global, 'GET', '/api/v1/global/health')).toEqual({
      operation: 'getApiV1GlobalHealth',
      resource: '/api/v1/global/health',
      params: null,
    });
    expect(matched(global, 'DELETE', '/api/v1/global/jobs').operation).toBe('deleteApiV1GlobalJobs');
  });

  test('a literal dead end backtracks to {proxy+}', () => {
    expect(matched(global, 'GET', '/api/v1/global/other')).toEqual({
      operation: 'getApiV1Proxy',
      resource: '/api/v1/{proxy+}',
      params: { proxy: 'global/other' },
    });
  });

  test('a method the matched resource lacks does not fall back to the catch-all', () => {
    expect(matched(global, 'POST', '/api/v1/global/health')).toEqual({ missing: '/api/v1/global/health' });
    // HEAD/OPTIONS exist only on the regional API's control-plane route.
    expect(matched(global, 'HEAD', '/api/v1/jobs')).toEqual({ missing: '/api/v1/{proxy+}' });
    expect(matched(regional, 'HEAD', '/api/v1/jobs').operation).toBe('headApiV1Proxy');
  });

  test('{proxy+} takes every remaining segment, decoded, and needs at least one', () => {
    expect(matched(global, 'POST', '/inference/llama/v1/chat%20x/completions')).toEqual({
      operation: 'postInferenceProxy',
      resource: '/inference/{proxy+}',
      params: { proxy: 'llama/v1/chat x/completions' },
    });
    expect(matched(global, 'GET', '/api/v1/jobs/')).toMatchObject({ params: { proxy: 'jobs/' } });
    expect(matched(global, 'GET', '/api/v1/')).toEqual({ missing: null });
    expect(matched(global, 'GET', '/api/v1')).toEqual({ missing: '/api/v1' });
  });

  test('unknown paths and the root are missing', () => {
    expect(matched(global, 'GET', '/')).toEqual({ missing: '/' });
    expect(matched(global, 'GET', '/nothing/here')).toEqual({ missing: null });
    expect(matched(regional, 'GET', '/api/v1/global/health')).toMatchObject({ operation: 'getApiV1Proxy' });
  });
});

describe('analytics API', () => {
  test('path parameters are named by the definition and decoded', () => {
    expect(matched(analytics, 'PUT', '/applications/app%2D1/authorizations/key-9')).toEqual({
      operation: 'updateAuthorization',
      resource: '/applications/{APPLICATION_ID}/authorizations/{API_KEY_ID}',
      params: { APPLICATION_ID: 'app-1', API_KEY_ID: 'key-9' },
    });
    expect(matched(analytics, 'POST', '/applications/abc/events').operation).toBe('putEvents');
  });

  test('a literal segment wins over a parameter at the same level', () => {
    expect(matched(analytics, 'POST', '/applications/redshift/setup')).toEqual({
      operation: 'setupRedshiftUnderApplications',
      resource: '/applications/redshift/setup',
      params: null,
    });
    // …but only for what the literal resource has: GET on it is missing, not getApplication.
    expect(matched(analytics, 'GET', '/applications/redshift')).toEqual({
      missing: '/applications/redshift',
    });
    expect(matched(analytics, 'GET', '/applications/redshift2')).toMatchObject({
      operation: 'getApplication',
    });
  });

  test('an empty segment never matches a parameter', () => {
    expect(matched(analytics, 'GET', '/applications//authorizations')).toEqual({ missing: null });
  });
});

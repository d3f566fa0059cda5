/**
 * The alarms of one REST API (global, regional or analytics): 5XX rate, 4XX spike and p99 latency of
 * the buffered routes against their integration timeout. Streaming routes are left out of the latency
 * alarm (a healthy stream lasts up to 900 s); their functions' Duration alarm covers them.
 */
import { MathExpression } from 'aws-cdk-lib/aws-cloudwatch';
import type { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { ApiDefinition, RouteDefinition } from '../../contracts/api-routes.js';
import type { AlarmSet, AlarmSpec } from './alarm-set.js';
import { apiMethodMetric, apiStageMetric } from './metrics.js';

/** Metrics one alarm's math expression may use. */
const MAX_METRICS_PER_ALARM = 10;

export interface MonitoredApi {
  /** Alarm id prefix, e.g. `global-api`. */
  readonly id: string;
  /** For humans, e.g. `Global API`. */
  readonly title: string;
  /** The REST API's name (the ApiName dimension). */
  readonly apiName: string;
  readonly definition: ApiDefinition;
}

/** Routes answered in one piece (not streamed), by method and path, with their integration timeout. */
function bufferedRoutes(definition: ApiDefinition): { route: RouteDefinition; timeoutSeconds: number }[] {
  return definition.routes.flatMap((route) =>
    route.integration.type === 'lambda' && !route.integration.streaming
      ? [{ route, timeoutSeconds: route.integration.timeoutSeconds }]
      : [],
  );
}

/** The API's alarm specs: 5XX rate, 4XX rate, p99 latency of the buffered routes. */
export function apiAlarmSpecs(api: MonitoredApi): AlarmSpec[] {
  const { apiName, definition } = api;
  const stage = definition.stage;
  const specs: AlarmSpec[] = [
    {
      id: `${api.id}-5xx-rate`,
      title: `${api.title}: 5XX rate`,
      policy: 'apiServerErrorRate',
      metric: apiStageMetric(apiName, stage, '5XXError'),
    },
    {
      id: `${api.id}-4xx-rate`,
      title: `${api.title}: 4XX rate`,
      policy: 'apiClientErrorRate',
      metric: apiStageMetric(apiName, stage, '4XXError'),
    },
  ];

  const buffered = bufferedRoutes(definition);
  if (buffered.length === 0) return specs;
  const timeoutMs = Math.max(...buffered.map((b) => b.timeoutSeconds)) * 1000;
  const streams = definition.routes.some((r) => r.integration.type === 'lambda' && r.integration.streaming);
  if (!streams) {
    // Every Lambda route has the same bound: the stage's own p99 is the routes' p99.
    specs.push({
      id: `${api.id}-p99-latency`,
      title: `${api.title}: p99 latency`,
      policy: 'apiLatencyP99',
      metric: apiStageMetric(apiName, stage, 'Latency'),
      timeout: timeoutMs,
    });
    return specs;
  }
  // The stage mixes streams in: the slowest buffered method's p99, in alarms of at most ten metrics.
  const groups: RouteDefinition[][] = [];
  buffered.forEach(({ route }, i) => {
    if (i % MAX_METRICS_PER_ALARM === 0) groups.push([]);
    groups[groups.length - 1]?.push(route);
  });
  groups.forEach((routes, g) => {
    const usingMetrics: Record<string, Metric> = {};
    routes.forEach((route, i) => {
      usingMetrics[`m${i}`] = apiMethodMetric(apiName, stage, route, 'Latency');
    });
    specs.push({
      id: `${api.id}-p99-latency${groups.length > 1 ? `-${g + 1}` : ''}`,
      title: `${api.title}: p99 latency of the buffered routes`,
      policy: 'apiLatencyP99',
      metric: new MathExpression({
        expression: `MAX([${Object.keys(usingMetrics).join(',')}])`,
        usingMetrics,
        label: 'slowest buffered route p99',
      }),
      timeout: timeoutMs,
    });
  });
  return specs;
}

export function addApiAlarms(set: AlarmSet, api: MonitoredApi): void {
  for (const spec of apiAlarmSpecs(api)) set.add(spec);
}

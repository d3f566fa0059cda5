/**
 * Metrics whose dimensions are known at synth time, so any stack can draw them in any region (the
 * global dashboard's cross-region widgets) and the alarms use the very same definitions: API Gateway
 * stage and method metrics (by API name and stage) and the platform's own metrics
 * (cluster/shared/platform-metrics.ts: namespace GCO/Platform, dimensions Project and Region).
 */
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { PLATFORM_METRICS, PLATFORM_METRICS_NAMESPACE } from '../../cluster/shared/platform-metrics.js';
import type { CertificateName, PlatformMetricId } from '../../cluster/shared/platform-metrics.js';

/** Where a metric is: the dashboard's own region unless set (cross-region widgets). */
export interface MetricPlace {
  readonly region?: string;
}

/** A stage-level API Gateway metric (5XXError, 4XXError, Latency, Count). */
export function apiStageMetric(
  apiName: string,
  stage: string,
  metricName: string,
  place: MetricPlace = {},
): Metric {
  return new Metric({
    namespace: 'AWS/ApiGateway',
    metricName,
    dimensionsMap: { ApiName: apiName, Stage: stage },
    ...(place.region !== undefined ? { region: place.region } : {}),
  });
}

/** A method-level API Gateway metric (detailed metrics are on for every stage). */
export function apiMethodMetric(
  apiName: string,
  stage: string,
  route: { readonly method: string; readonly path: string },
  metricName: string,
): Metric {
  return new Metric({
    namespace: 'AWS/ApiGateway',
    metricName,
    dimensionsMap: { ApiName: apiName, Stage: stage, Method: route.method, Resource: route.path },
  });
}

/** A platform-published metric of `project` in `region` (where the publisher runs). */
export function platformMetric(
  id: PlatformMetricId,
  project: string,
  region: string,
  options: { readonly certificate?: CertificateName; readonly crossRegion?: boolean } = {},
): Metric {
  const { name } = PLATFORM_METRICS[id];
  return new Metric({
    namespace: PLATFORM_METRICS_NAMESPACE,
    metricName: name,
    dimensionsMap: {
      Project: project,
      Region: region,
      ...(options.certificate !== undefined ? { Certificate: options.certificate } : {}),
    },
    ...(options.crossRegion ? { region } : {}),
  });
}

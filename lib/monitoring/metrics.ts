/**
 * Metrics whose dimensions are known at synth time: API Gateway stage and method metrics (by API name
 * and stage) and the platform's own metrics (contracts/platform-metrics.ts: namespace GCO/Platform,
 * dimensions Project and Region). The alarms use them, and the global dashboard draws the very same
 * definitions in other regions (`Metric.with({ region })`).
 */
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { PLATFORM_METRICS, PLATFORM_METRICS_NAMESPACE } from '../../contracts/platform-metrics.js';
import type { CertificateName, PlatformMetricId } from '../../contracts/platform-metrics.js';

/** A stage-level API Gateway metric (5XXError, 4XXError, Latency, Count). */
export function apiStageMetric(apiName: string, stage: string, metricName: string): Metric {
  return new Metric({
    namespace: 'AWS/ApiGateway',
    metricName,
    dimensionsMap: { ApiName: apiName, Stage: stage },
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
  options: { readonly certificate?: CertificateName } = {},
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
  });
}

/**
 * The CloudWatch embedded metric format (EMF) document of platform metrics: shared by the services'
 * publisher (emf-publisher.ts) and the internal-CA Lambda, which logs it to stdout. No dependencies, so
 * a Lambda bundle takes it without the CloudWatch Logs client.
 */
import {
  CERTIFICATE_DIMENSIONS,
  PLATFORM_DIMENSIONS,
  PLATFORM_METRICS,
  PLATFORM_METRICS_NAMESPACE,
  type CertificateName,
  type PlatformMetricId,
} from './platform-metrics.js';

export type MetricValues = Partial<Record<PlatformMetricId, number>>;

/** Dimension values of one document: Project and Region always; Certificate for certificate metrics. */
export interface MetricDimensions {
  readonly Project: string;
  readonly Region: string;
  readonly Certificate?: CertificateName;
}

export interface EmfDocument {
  readonly _aws: {
    readonly Timestamp: number;
    readonly CloudWatchMetrics: readonly {
      readonly Namespace: string;
      readonly Dimensions: readonly (readonly string[])[];
      readonly Metrics: readonly { readonly Name: string; readonly Unit: string }[];
    }[];
  };
  readonly [field: string]: unknown;
}

/**
 * One EMF document: the metric directive, the dimension values and one value per metric (as root
 * members named like the metrics). Non-finite values are left out: CloudWatch would reject the event.
 */
export function emfDocument(
  timestamp: number,
  dimensions: MetricDimensions,
  values: MetricValues,
): EmfDocument {
  const metrics: { Name: string; Unit: string }[] = [];
  const members: Record<string, number> = {};
  for (const [id, value] of Object.entries(values) as [PlatformMetricId, number | undefined][]) {
    if (value === undefined || !Number.isFinite(value)) continue;
    const metric = PLATFORM_METRICS[id];
    metrics.push({ Name: metric.name, Unit: metric.unit });
    members[metric.name] = value;
  }
  const dimensionValues: Record<string, string> = { Project: dimensions.Project, Region: dimensions.Region };
  if (dimensions.Certificate !== undefined) dimensionValues.Certificate = dimensions.Certificate;
  return {
    _aws: {
      Timestamp: timestamp,
      CloudWatchMetrics: [
        {
          Namespace: PLATFORM_METRICS_NAMESPACE,
          Dimensions: [dimensions.Certificate === undefined ? PLATFORM_DIMENSIONS : CERTIFICATE_DIMENSIONS],
          Metrics: metrics,
        },
      ],
    },
    ...dimensionValues,
    ...members,
  };
}

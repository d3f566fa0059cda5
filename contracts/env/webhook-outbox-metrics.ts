/**
 * The webhook-outbox metrics function's environment contract (docs/operations.md, "Webhook outbox"):
 * `webhookOutboxMetricsEnvironment` writes it (the global stack), `readWebhookOutboxMetricsConfig` reads
 * it on the first invocation, reporting every problem at once.
 */
import { EnvReader, envVariables } from './reader.js';

export interface WebhookOutboxMetricsConfig {
  /** The delivery outbox (TABLES.webhookDeliveries) in the function's region. */
  readonly deliveriesTable: string;
  /** The Project dimension of the published metrics (config project_name). */
  readonly project: string;
  /** Region of the table, and so of the client: the function's own (AWS_REGION, set by Lambda). */
  readonly region: string;
}

export function webhookOutboxMetricsEnvironment(
  config: Omit<WebhookOutboxMetricsConfig, 'region'>,
): Record<string, string> {
  return envVariables({ WEBHOOK_DELIVERIES_TABLE: config.deliveriesTable, PROJECT_NAME: config.project });
}

/** Reads and validates the environment; throws an EnvironmentError listing every problem. */
export function readWebhookOutboxMetricsConfig(env: NodeJS.ProcessEnv): WebhookOutboxMetricsConfig {
  const r = new EnvReader(env);
  const deliveriesTable = r.required('WEBHOOK_DELIVERIES_TABLE', 'the webhook delivery outbox table');
  const project = r.required('PROJECT_NAME', 'the Project dimension of the metrics');
  const region = r.required('AWS_REGION', 'region of the DynamoDB client, set by Lambda');
  r.finish();
  return Object.freeze({
    deliveriesTable: deliveriesTable ?? '',
    project: project ?? '',
    region: region ?? '',
  });
}

/** Webhooks for job events: registration routes, the job-event watcher and the delivery worker (docs/webhooks.md). */
export { postWebhook, type WebhookRequest as WebhookHttpRequest, type WebhookResult } from './client.js';
export {
  checkWebhookConfig,
  loadWebhookConfig,
  WEBHOOK_DEFAULTS,
  webhookEnvironment,
  type WebhookConfig,
} from './config.js';
export {
  deliveryId,
  deriveJobEvents,
  jobPayload,
  type DeliveryPayload,
  type JobEvent,
  type JobPayload,
} from './events.js';
export { WebhookMetrics, type WebhookMetricsOptions, type WebhookMetricValues } from './metrics.js';
export { webhookRoutes, WEBHOOKS_PREFIX, type WebhookRouteDeps } from './routes.js';
export { ListWebhooksQuery, WebhookEventSchema, WebhookPath, WebhookRequest } from './schemas.js';
export {
  DELIVERY_HEADER,
  EVENT_HEADER,
  SIGNATURE_HEADER,
  signatureHeader,
  signatureOf,
  verifySignature,
} from './signature.js';
export {
  classifyAddress,
  isAllowedAddress,
  parseWebhookUrl,
  systemLookup,
  TargetRefusedError,
  TargetResolutionError,
  vetWebhookTarget,
  type AddressCategory,
  type Lookup,
  type ResolvedAddress,
  type VettedTarget,
} from './ssrf.js';
export {
  DeliveryStore,
  WEBHOOK_EVENTS,
  WebhookStore,
  webhookView,
  type AttemptRecord,
  type DeliveryRecord,
  type DeliveryStatus,
  type Webhook,
  type WebhookEvent,
  type WebhookView,
} from './store.js';
export {
  JobEventWatcher,
  REGISTRATION_TOLERANCE_MS,
  type JobEventWatcherOptions,
  type WatchPassResult,
} from './watcher.js';
export {
  backoffMs,
  DeliveryWorker,
  isRetryableStatus,
  USER_AGENT,
  type DeliveryPassResult,
  type DeliveryWorkerOptions,
} from './worker.js';

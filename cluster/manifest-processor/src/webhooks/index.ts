/** Webhooks for job events: registration routes, the job-event watcher and the delivery worker (docs/webhooks.md). */
export { postWebhook } from './client.js';
export { checkWebhookConfig, loadWebhookConfig, webhookEnvironment, type WebhookConfig } from './config.js';
export { deliveryId, deriveJobEvents, jobPayload } from './events.js';
export { WebhookMetrics } from './metrics.js';
export { webhookRoutes, WEBHOOKS_PREFIX } from './routes.js';
export { signatureHeader, verifySignature } from './signature.js';
export { type Lookup } from './ssrf.js';
export { DeliveryStore, WebhookStore, type DeliveryRecord } from './store.js';
export { JobEventWatcher } from './watcher.js';
export { backoffMs, DeliveryWorker, isRetryableStatus } from './worker.js';

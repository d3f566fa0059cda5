/** Views of the webhook answers (docs/webhooks.md). */
import type { WebhookView as Webhook } from '../../contracts/api/manifest-processor-central.js';
import { fieldsView, listView, text, type Fields } from './common.js';

const webhookId = (w: Fields<Webhook>) => text(w.webhook_id);

export const webhookListView = listView<Webhook>(
  'webhooks',
  [
    ['webhook id', (w) => w.webhook_id],
    ['url', (w) => w.url],
    ['events', (w) => w.events],
    ['namespace', (w) => w.namespace],
    ['signed', (w) => w.has_secret],
    ['created', (w) => w.created_at],
  ],
  webhookId,
  'webhook',
);

export const webhookView = fieldsView<Webhook>(
  ['webhook_id', 'url', 'events', 'namespace', 'has_secret', 'created_at'],
  webhookId,
  'webhook',
);

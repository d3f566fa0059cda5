/** Views of the webhook answers (docs/webhooks.md). */
import { fieldsView, listView, text, type Fields } from './common.js';

interface Webhook {
  webhook_id: string;
  url: string;
  events: string[];
  namespace: string | null;
  has_secret: boolean;
  created_at: string;
}

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
);

export const webhookView = fieldsView<Webhook>(
  ['webhook_id', 'url', 'events', 'namespace', 'has_secret', 'created_at'],
  webhookId,
);

/** Request schemas of the webhook operations (docs/webhooks.md: WebhookRequest, WebhookEvent). */
import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../../shared/schema.js';
import { ERROR_HINT } from '../../../shared/validation.js';
import { WEBHOOK_EVENTS } from './store.js';

const WebhookEventSchema = StringEnum(WEBHOOK_EVENTS, { title: 'WebhookEvent' });

/** The longest webhook URL, as sent and in its canonical (stored) form. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/**
 * Closed like every body (service framework): an unknown field (a misspelt `secret`) is a 422, not a
 * silently unsigned webhook. Constraints are the spec's, plus the bounds in docs/api-limits.md.
 */
export const WebhookRequest = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: MAX_WEBHOOK_URL_LENGTH,
      description:
        'https:// URL called on events; its host must resolve to public addresses only (checked at registration and before every delivery). Stored and listed in its WHATWG canonical form (e.g. https://0x7f000001/ is https://127.0.0.1/)',
    }),
    events: Type.Array(WebhookEventSchema, {
      minItems: 1,
      uniqueItems: true,
      description: 'Subscribed events (at least one, no repeats)',
    }),
    namespace: Type.Optional(
      Nullable(
        Type.String({
          minLength: 1,
          maxLength: 63,
          description: 'Only events of jobs in this namespace (null or absent: every namespace)',
          [ERROR_HINT]:
            'a namespace name has 1 to 63 characters; send null or leave it out for every namespace',
        }),
      ),
    ),
    secret: Type.Optional(
      Nullable(
        Type.String({
          minLength: 1,
          maxLength: 512,
          description:
            'HMAC-SHA256 key for X-GCO-Signature (1 to 512 characters); write-only (never returned); null or absent: unsigned deliveries',
          [ERROR_HINT]:
            'send 1 to 512 characters, or null for unsigned deliveries (an empty key would give signatures anyone can compute)',
        }),
      ),
    ),
  },
  { title: 'WebhookRequest' },
);

export const ListWebhooksQuery = Type.Object({
  namespace: Type.Optional(Type.String({ description: 'Only webhooks filtered to exactly this namespace' })),
});

export const WebhookPath = Type.Object({ webhook_id: Type.String({ minLength: 1, maxLength: 128 }) });

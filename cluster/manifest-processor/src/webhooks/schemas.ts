/** Request schemas of the webhook operations (docs/webhooks.md: WebhookRequest, WebhookEvent). */
import { Type, type Static } from 'typebox';
import { Nullable, StringEnum } from '../../../shared/schema.js';
import { WEBHOOK_EVENTS } from './store.js';

export const WebhookEventSchema = StringEnum(WEBHOOK_EVENTS, { title: 'WebhookEvent' });

/** Closed body: an unknown field (a misspelt `secret`) is a 422, not a silently unsigned webhook. */
export const WebhookRequest = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'https:// URL called on events; must resolve to public addresses only',
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
          pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
          description: 'Only jobs of this namespace (one of the allowed namespaces)',
        }),
      ),
    ),
    secret: Type.Optional(
      Nullable(
        Type.String({
          minLength: 16,
          maxLength: 512,
          description: 'HMAC-SHA256 key for X-GCO-Signature; write-only (never returned)',
        }),
      ),
    ),
  },
  { title: 'WebhookRequest', additionalProperties: false },
);
export type WebhookBody = Static<typeof WebhookRequest>;

export const ListWebhooksQuery = Type.Object({
  namespace: Type.Optional(Type.String({ description: 'Only webhooks filtered to exactly this namespace' })),
});

export const WebhookPath = Type.Object({ webhook_id: Type.String({ minLength: 1, maxLength: 128 }) });

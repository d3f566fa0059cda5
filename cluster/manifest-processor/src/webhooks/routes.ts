/** GET|POST /api/v1/webhooks and DELETE /api/v1/webhooks/{webhook_id}. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { WEBHOOK_RESPONSES as RESPONSES } from '../../../../contracts/api/manifest-processor-central.js';
import { HttpError, RequestValidationError } from '../../../shared/errors.js';
import type { ServiceApp } from '../../../shared/service.js';
import { ListWebhooksQuery, MAX_WEBHOOK_URL_LENGTH, WebhookPath, WebhookRequest } from './schemas.js';
import { vetWebhookTarget, type Lookup } from './ssrf.js';
import { webhookView, type WebhookStore } from './store.js';

export interface WebhookRouteDeps {
  webhooks: WebhookStore;
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: local development only. */
  allowPrivateTargets: boolean;
  /** The policy's allowed namespaces: the only ones with jobs, so a filter outside them gets a warning. */
  allowedNamespaces: readonly string[];
  lookup?: Lookup;
}

function storeError(error: unknown): HttpError {
  return error instanceof HttpError ? error : new HttpError(503, 'Webhook store unavailable');
}

export const WEBHOOKS_PREFIX = '/api/v1/webhooks';

function listRoute(app: ServiceApp, deps: WebhookRouteDeps): void {
  app.get(
    '',
    {
      schema: {
        operationId: 'list_webhooks_api_v1_webhooks_get',
        summary: 'Registered webhooks (secrets are never returned: see has_secret)',
        querystring: ListWebhooksQuery,
        response: RESPONSES.list,
      },
    },
    async (request) => {
      const webhooks = await deps.webhooks.list(request.query.namespace).catch((error: unknown) => {
        throw storeError(error);
      });
      return { webhooks: webhooks.map(webhookView), count: webhooks.length };
    },
  );
}

/**
 * Vets the target (checked again before every delivery: DNS may change after registration) and returns
 * the URL in its WHATWG canonical form — the form the check judged and the one stored and listed, so a
 * listing shows the real target (`https://0x7f000001:8443` is `https://127.0.0.1:8443/`).
 */
async function vetTarget(deps: WebhookRouteDeps, url: string): Promise<string> {
  let canonical: string;
  try {
    const target = await vetWebhookTarget(url, {
      allowPrivateTargets: deps.allowPrivateTargets,
      ...(deps.lookup ? { lookup: deps.lookup } : {}),
    });
    canonical = target.url.href;
  } catch (error) {
    throw new RequestValidationError([
      {
        loc: ['body', 'url'],
        msg: `Value error, webhook target refused: ${error instanceof Error ? error.message : String(error)}; use an https:// URL whose host resolves only to public addresses (docs/webhooks.md)`,
        type: 'value_error',
        input: url,
      },
    ]);
  }
  // Canonicalising can lengthen a URL (an internationalised host becomes punycode).
  if (canonical.length > MAX_WEBHOOK_URL_LENGTH) {
    throw new RequestValidationError([
      {
        loc: ['body', 'url'],
        msg: `Value error, the URL's canonical form (${canonical.length} characters) is longer than ${MAX_WEBHOOK_URL_LENGTH} characters`,
        type: 'value_error',
        input: url,
      },
    ]);
  }
  return canonical;
}

function createRoute(app: ServiceApp, deps: WebhookRouteDeps): void {
  app.post(
    '',
    {
      schema: {
        operationId: 'create_webhook_api_v1_webhooks_post',
        summary: 'Register a webhook for job events',
        body: WebhookRequest,
        response: RESPONSES.create,
      },
    },
    async (request) => {
      const { events, namespace, secret } = request.body;
      const url = await vetTarget(deps, request.body.url);
      const webhook = await deps.webhooks
        .create({ url, events, namespace: namespace ?? null, secret: secret ?? null })
        .catch((error: unknown) => {
          throw storeError(error);
        });
      request.log.info(
        {
          webhook_id: webhook.webhook_id,
          events,
          namespace: webhook.namespace,
          has_secret: webhook.secret !== null,
        },
        'webhook registered',
      );
      // The filter is the caller's to choose; one that can never match is registered with a warning.
      const warnings =
        namespace && !deps.allowedNamespaces.includes(namespace)
          ? [
              `namespace ${namespace} is not one of the namespaces jobs run in (${deps.allowedNamespaces.join(', ')}): this webhook will not be called until it is`,
            ]
          : [];
      return { ...webhookView(webhook), ...(warnings.length > 0 ? { warnings } : {}) };
    },
  );
}

function deleteRoute(app: ServiceApp, deps: WebhookRouteDeps): void {
  app.delete(
    '/:webhook_id',
    {
      schema: {
        operationId: 'delete_webhook_api_v1_webhooks__webhook_id__delete',
        summary: 'Delete a webhook (its undelivered deliveries are cancelled)',
        params: WebhookPath,
        response: RESPONSES.delete,
      },
    },
    async (request) => {
      const { webhook_id } = request.params;
      const deleted = await deps.webhooks.delete(webhook_id).catch((error: unknown) => {
        throw storeError(error);
      });
      if (!deleted) throw new HttpError(404, `Webhook ${webhook_id} not found`);
      request.log.info({ webhook_id }, 'webhook deleted');
      return { deleted: true, webhook_id };
    },
  );
}

export const webhookRoutes: FastifyPluginAsyncTypebox<WebhookRouteDeps> = async (app, deps) => {
  for (const route of [listRoute, createRoute, deleteRoute]) route(app, deps);
};

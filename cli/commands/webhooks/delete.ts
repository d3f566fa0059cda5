/**
 * `gco webhooks delete`: webhooks, cancelling their pending deliveries. That cannot be undone, so they
 * are shown and confirmed first (confirm.ts: `--yes` without a terminal); `--dry-run` only lists them.
 */
import { Command } from '@commander-js/extra-typings';
import type { WebhookView } from '../../../contracts/api/manifest-processor-central.js';
import { apiErrorOf } from '../../api-errors.js';
import { bareName, examples, type CommandKit } from '../../command-kit.js';
import { YES_OPTION, confirmDeletion, deleteEach, mustAsk, type DestructiveOptions } from '../../confirm.js';
import type { CommandContext } from '../../context.js';
import { UsageError } from '../../errors.js';
import { pathOf } from '../../http.js';
import { deletedViewOf, listView, recordOf, rowsOf } from '../../views/common.js';
import { webhookListView } from '../../views/webhooks.js';

const deletedWebhookView = deletedViewOf('webhook');
const deletedWebhooksView = listView<{ webhook_id: string; deleted: boolean }>(
  'webhooks',
  [
    ['webhook id', (w) => w.webhook_id],
    ['deleted', (w) => w.deleted],
  ],
  (w) => String(w.webhook_id),
  'webhook',
);

export function deleteCommand(kit: CommandKit) {
  return examples(
    new Command('delete')
      .description('delete webhooks (pending deliveries are cancelled); asks first')
      .argument('<webhook-ids...>', 'webhook ids (ID or webhook/ID)')
      .option(...YES_OPTION)
      .option('--dry-run', 'list the webhooks that would be deleted, delete nothing')
      .action(async (ids, opts, cmd) =>
        runDelete(
          { ...opts, ids: ids.map((id) => bareName(id, ['webhook', 'webhooks'])) },
          await kit.context(cmd),
        ),
      ),
    'gco webhooks delete 0b7e…',
    'gco webhooks list -o name | xargs gco webhooks delete --yes',
  );
}

async function runDelete(
  options: DestructiveOptions & { ids: string[] },
  ctx: CommandContext,
): Promise<void> {
  const ids = [...new Set(options.ids)];
  const what = ids.length === 1 ? `webhook ${ids[0] ?? ''}` : `${ids.length} webhooks`;
  const ask = mustAsk(ctx.io, options, what);
  const client = await ctx.control();
  if (ask || options.dryRun === true) {
    // The API has no GET of one webhook: the list, narrowed to these ids.
    const list = await client.send({ method: 'GET', path: '/api/v1/webhooks' });
    if (list.status !== 200) throw apiErrorOf(list);
    const webhooks = rowsOf<WebhookView>(recordOf<{ webhooks: unknown }>(list.json).webhooks).filter((w) =>
      ids.includes(String(w.webhook_id)),
    );
    const missing = ids.filter((id) => !webhooks.some((w) => w.webhook_id === id));
    if (missing.length > 0)
      throw new UsageError(`No such webhook: ${missing.join(', ')}`, 'see `gco webhooks list`');
    const listing = { value: { webhooks }, view: webhookListView };
    if (options.dryRun === true) {
      ctx.out.value(listing.value, webhookListView);
      ctx.out.info(`(dry run: ${webhooks.length} webhook(s) would be deleted, nothing deleted)`);
      return;
    }
    if (!(await confirmDeletion(ctx, `Delete ${what}?`, listing))) return;
  }
  const requests = ids.map((id) => ({
    method: 'DELETE' as const,
    path: pathOf('api', 'v1', 'webhooks', id),
  }));
  await deleteEach(ctx, client, requests, deletedWebhookView, {
    view: deletedWebhooksView,
    of: (bodies) => ({ webhooks: bodies }),
  });
}

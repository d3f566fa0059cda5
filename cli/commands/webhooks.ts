/**
 * `gco webhooks …`: HTTPS endpoints that receive job events (docs/webhooks.md). The secret is
 * write-only on the platform; pass it from a file rather than the command line where you can.
 */
import { Command, Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { examples, type CommandKit } from '../command-kit.js';
import { UsageError } from '../errors.js';
import { pathOf } from '../http.js';
import { readText } from '../input-files.js';
import { collect } from '../options.js';
import { deletedView, webhookListView, webhookView } from '../views.js';

export const WEBHOOK_EVENTS = ['job.started', 'job.completed', 'job.failed'] as const;

export function webhooksCommand(kit: CommandKit): CommandUnknownOpts {
  const webhooks = examples(
    new Command('webhooks').description('job event notifications to your HTTPS endpoints'),
    'gco webhooks list',
  );

  examples(
    webhooks
      .command('create')
      .description('register a webhook')
      .requiredOption('--url <url>', 'https:// endpoint that receives the events')
      .requiredOption(
        '-e, --event <event>',
        `event to send: ${WEBHOOK_EVENTS.join(', ')} (repeatable)`,
        collect,
      )
      .option('-n, --namespace <namespace>', 'only jobs of this namespace')
      .addOption(
        new Option(
          '--secret <secret>',
          'HMAC secret for X-GCO-Signature (1–512 characters; 32 random bytes recommended)',
        ).conflicts('secretFile'),
      )
      .option('--secret-file <path>', 'read the secret from a file (- for stdin)')
      .action(async (opts, cmd) => {
        const ctx = await kit.context(cmd);
        const unknown = opts.event.filter((e) => !(WEBHOOK_EVENTS as readonly string[]).includes(e));
        if (unknown.length > 0) {
          throw new UsageError(
            `--event: unknown ${unknown.join(', ')} (choose from ${WEBHOOK_EVENTS.join(', ')})`,
          );
        }
        const secret =
          opts.secretFile !== undefined ? (await readText(opts.secretFile, ctx.io)).trim() : opts.secret;
        await ctx.call(
          await ctx.control(),
          {
            method: 'POST',
            path: '/api/v1/webhooks',
            body: {
              url: opts.url,
              events: [...new Set(opts.event)],
              ...(opts.namespace !== undefined ? { namespace: opts.namespace } : {}),
              ...(secret !== undefined ? { secret } : {}),
            },
          },
          webhookView,
        );
      }),
    'gco webhooks create --url https://hooks.example.com/gco -e job.completed -e job.failed --secret-file secret.txt',
  );

  examples(
    webhooks
      .command('list')
      .description('list webhooks')
      .option('-n, --namespace <namespace>', 'only webhooks filtered to exactly this namespace')
      .action(async (opts, cmd) => {
        const ctx = await kit.context(cmd);
        await ctx.call(
          await ctx.control(),
          { method: 'GET', path: '/api/v1/webhooks', query: { namespace: opts.namespace } },
          webhookListView,
        );
      }),
    'gco webhooks list',
  );

  examples(
    webhooks
      .command('delete')
      .description('delete a webhook (pending deliveries are cancelled)')
      .argument('<webhook-id>', 'webhook id')
      .action(async (id, _opts, cmd) => {
        const ctx = await kit.context(cmd);
        await ctx.call(
          await ctx.control(),
          { method: 'DELETE', path: pathOf('api', 'v1', 'webhooks', id) },
          deletedView,
        );
      }),
    'gco webhooks delete 0b7e…',
  );
  return webhooks;
}

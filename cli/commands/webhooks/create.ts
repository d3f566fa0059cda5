/**
 * `gco webhooks create`: an HTTPS endpoint that receives job events. The secret is write-only on the
 * platform; pass it from a file rather than the command line where you can.
 */
import { Command, Option } from '@commander-js/extra-typings';
import { examples, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import { UsageError } from '../../errors.js';
import { readText } from '../../input-files.js';
import { collect } from '../../options.js';
import { webhookView } from '../../views/webhooks.js';

const WEBHOOK_EVENTS = ['job.started', 'job.completed', 'job.failed'] as const;

interface CreateOptions {
  url: string;
  event: string[];
  namespace?: string;
  secret?: string;
  secretFile?: string;
}

export function createCommand(kit: CommandKit) {
  return examples(
    new Command('create')
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
      .action(async (opts, cmd) => runCreate(opts, await kit.context(cmd))),
    'gco webhooks create --url https://hooks.example.com/gco -e job.completed -e job.failed --secret-file secret.txt',
  );
}

async function runCreate(options: CreateOptions, ctx: CommandContext): Promise<void> {
  const unknown = options.event.filter((e) => !(WEBHOOK_EVENTS as readonly string[]).includes(e));
  if (unknown.length > 0) {
    throw new UsageError(`--event: unknown ${unknown.join(', ')} (choose from ${WEBHOOK_EVENTS.join(', ')})`);
  }
  const secret =
    options.secretFile !== undefined ? (await readText(options.secretFile, ctx.io)).trim() : options.secret;
  const body = {
    url: options.url,
    events: [...new Set(options.event)],
    namespace: options.namespace,
    secret,
  };
  await ctx.call(await ctx.control(), { method: 'POST', path: '/api/v1/webhooks', body }, webhookView);
}

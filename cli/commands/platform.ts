/**
 * Platform-wide views: `gco status` and `gco health` through the global API's aggregate routes (every
 * region, docs/aggregator.md) or one region with `--region`, and `gco policy` (the effective validation
 * policy of a region, docs/validation-policy.md).
 */
import { Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import type { GlobalHealth } from '../../contracts/api/aggregator.js';
import type { ClusterHealth } from '../../contracts/api/health-monitor.js';
import { ensureOk } from '../api-errors.js';
import { examples, type CommandKit } from '../command-kit.js';
import type { CommandContext } from '../context.js';
import { ApiError } from '../errors.js';
import { recordOf } from '../views/common.js';
import { globalHealthView, globalStatusView } from '../views/platform.js';

/** The aggregate route on the global API, or the regional route when `--region` pins one region. */
async function regionalOrGlobal(ctx: CommandContext, route: 'health' | 'status') {
  if (ctx.options.region !== undefined) {
    return { client: await ctx.control(), path: `/api/v1/${route}`, aggregate: false };
  }
  return { client: await ctx.global(), path: `/api/v1/global/${route}`, aggregate: true };
}

export function statusCommand(kit: CommandKit): CommandUnknownOpts {
  return examples(
    new Command('status')
      .description("every region's templates, webhooks, limits and namespaces (or one region with --region)")
      .action(async (_opts, cmd) => {
        const ctx = await kit.context(cmd);
        const { client, path, aggregate } = await regionalOrGlobal(ctx, 'status');
        await ctx.call(client, { method: 'GET', path }, aggregate ? globalStatusView : {});
      }),
    'gco status',
    'gco --region us-east-1 status -o yaml',
  );
}

export function healthCommand(kit: CommandKit): CommandUnknownOpts {
  return examples(
    new Command('health')
      .description('health of every region (or one region with --region); exit 1 unless healthy')
      .action(async (_opts, cmd) => {
        const ctx = await kit.context(cmd);
        const { client, path, aggregate } = await regionalOrGlobal(ctx, 'health');
        const reply = await client.send({ method: 'GET', path });
        const { status } = recordOf<ClusterHealth | GlobalHealth>(reply.json);
        // health-monitor's 503 is an unhealthy cluster: a health answer all the same.
        if (reply.status !== 503 || typeof status !== 'string') ensureOk(reply);
        ctx.out.reply(reply, aggregate ? globalHealthView : {});
        if (status !== 'healthy') throw new ApiError(`The platform is ${String(status)}`);
      }),
    'gco health',
    'gco --region us-east-1 health -o json',
  );
}

export function policyCommand(kit: CommandKit): CommandUnknownOpts {
  return examples(
    new Command('policy')
      .description('the validation policy a region enforces (policy, limit ranges, resource quotas)')
      .action(async (_opts, cmd) => {
        const ctx = await kit.context(cmd);
        await ctx.call(await ctx.control(), { method: 'GET', path: '/api/v1/policy' });
      }),
    'gco policy -o yaml',
  );
}

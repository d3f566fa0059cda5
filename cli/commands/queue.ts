/**
 * `gco queue …`: the central job queue (docs/queue.md). A submission always carries an Idempotency-Key
 * — generated per invocation unless given, and printed — so gco's own retries and a user re-running the
 * command with the same key can never queue the job twice.
 */
import { randomUUID } from 'node:crypto';
import { Command, Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { examples, type CommandKit } from '../command-kit.js';
import { UsageError } from '../errors.js';
import { QUEUE_STATUSES } from '../../contracts/queue-states.js';
import { pathOf } from '../http.js';
import { readSingleObject } from '../input-files.js';
import { FINAL_QUEUE_STATES, requireSucceeded, waitUntilFinal } from '../job-wait.js';
import { integerIn, keyValue, positiveNumber, regionName } from '../options.js';
import { queueListView, queueStatsView, queuedJobView } from '../views.js';
import { waitTimeoutOption } from './jobs.js';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

const queuedJobPath = (id: string) => pathOf('api', 'v1', 'queue', 'jobs', id);

export function queueCommand(kit: CommandKit): CommandUnknownOpts {
  const queue = examples(
    new Command('queue').description('the central job queue: submit once, dispatched to a region'),
    'gco queue submit job.yaml --target-region us-east-1',
  );

  examples(
    queue
      .command('submit')
      .description('queue one batch/v1 Job for a region (exactly once per idempotency key)')
      .argument('<file>', 'the Job manifest (YAML or JSON); - reads stdin')
      .requiredOption('--target-region <region>', 'region that runs the job', regionName)
      .option(
        '-n, --namespace <namespace>',
        'namespace when the manifest names none (server default svc-jobs)',
      )
      .option('--priority <0-100>', 'higher runs first', integerIn(0, 100))
      .option('-l, --label <key=value>', 'label of the queue record (repeatable)', keyValue)
      .addOption(
        new Option(
          '--max-spot-price <usd>',
          'dispatch only while the spot price is at or below this',
        ).argParser(positiveNumber),
      )
      .addOption(new Option('--spot-instance-type <type>', 'instance type whose spot price gates dispatch'))
      .option('--idempotency-key <key>', 'replay-safe key (default: a new one per invocation, printed)')
      .option('--wait', 'wait until the queued job has finished')
      .addOption(waitTimeoutOption())
      .action(async (file, opts, cmd) => {
        const ctx = await kit.context(cmd);
        if ((opts.maxSpotPrice === undefined) !== (opts.spotInstanceType === undefined)) {
          throw new UsageError('--max-spot-price and --spot-instance-type go together');
        }
        const key = opts.idempotencyKey ?? randomUUID();
        if (!IDEMPOTENCY_KEY.test(key))
          throw new UsageError('--idempotency-key: 1 to 255 printable ASCII characters, no spaces');
        const manifest = await readSingleObject(file, ctx.io, 'Job manifest');
        const body = {
          manifest,
          target_region: opts.targetRegion,
          ...(opts.namespace !== undefined ? { namespace: opts.namespace } : {}),
          ...(opts.priority !== undefined ? { priority: opts.priority } : {}),
          ...(opts.label !== undefined ? { labels: opts.label } : {}),
          ...(opts.maxSpotPrice !== undefined ? { max_spot_price: opts.maxSpotPrice } : {}),
          ...(opts.spotInstanceType !== undefined ? { spot_instance_type: opts.spotInstanceType } : {}),
        };
        if (opts.idempotencyKey === undefined) {
          ctx.out.info(`idempotency key: ${key} (to retry this submission safely: --idempotency-key ${key})`);
        }
        const client = await ctx.control();
        const reply = await ctx.call(
          client,
          {
            method: 'POST',
            path: '/api/v1/queue/jobs',
            body,
            headers: { 'idempotency-key': key },
            idempotent: true,
          },
          queuedJobView,
        );
        if ((reply.json as { idempotent_replay?: unknown } | undefined)?.idempotent_replay === true) {
          ctx.out.info('already queued with this key: this is the original job');
        }
        if (opts.wait === true) {
          const id = String((reply.json as { job_id?: unknown }).job_id);
          const targets = [{ label: `queued job ${id}`, path: queuedJobPath(id) }];
          const finals = await waitUntilFinal(client, targets, ctx.out, {
            finalStates: FINAL_QUEUE_STATES,
            timeoutMs: opts.waitTimeout * 1000,
          });
          for (const final of finals) ctx.out.final(final, queuedJobView);
          requireSucceeded(targets, finals);
        }
      }),
    'gco queue submit job.yaml --target-region us-east-1 --priority 80 -l team=a',
    'gco queue submit job.yaml --target-region us-east-1 --idempotency-key nightly-2025-06-01',
    'gco queue submit gpu.yaml --target-region us-east-1 --max-spot-price 0.9 --spot-instance-type g5.xlarge',
  );

  examples(
    queue
      .command('list')
      .description('list queued jobs, newest first')
      .option('--target-region <region>', 'only jobs for this region', regionName)
      .addOption(new Option('--status <status>', 'only jobs in this state').choices(QUEUE_STATUSES))
      .option('-n, --namespace <namespace>', 'only this namespace')
      .option('--limit <n>', 'page size', integerIn(1, 1000))
      .option('--cursor <cursor>', 'the next_cursor of the previous page')
      .action(async (opts, cmd) => {
        const ctx = await kit.context(cmd);
        await ctx.call(
          await ctx.control(),
          {
            method: 'GET',
            path: '/api/v1/queue/jobs',
            query: {
              target_region: opts.targetRegion,
              status: opts.status,
              namespace: opts.namespace,
              limit: opts.limit,
              cursor: opts.cursor,
            },
          },
          queueListView,
        );
      }),
    'gco queue list --status queued --target-region us-east-1',
  );

  examples(
    queue
      .command('get')
      .description('show a queued job (with its manifest)')
      .argument('<job-id>', 'queued job id')
      .action(async (id, _opts, cmd) => {
        const ctx = await kit.context(cmd);
        await ctx.call(await ctx.control(), { method: 'GET', path: queuedJobPath(id) }, queuedJobView);
      }),
    'gco queue get 6f1e0c2a-… -o yaml',
  );

  examples(
    queue
      .command('cancel')
      .description('cancel a job that is still queued (409 once claimed)')
      .argument('<job-id>', 'queued job id')
      .option('--reason <text>', 'why (kept on the record)')
      .action(async (id, opts, cmd) => {
        const ctx = await kit.context(cmd);
        await ctx.call(
          await ctx.control(),
          { method: 'DELETE', path: queuedJobPath(id), query: { reason: opts.reason } },
          queuedJobView,
        );
      }),
    'gco queue cancel 6f1e0c2a-… --reason "superseded"',
  );

  examples(
    queue
      .command('poll')
      .description("run one queue-worker pass in the region now (the operator's trigger)")
      .option('--limit <n>', 'dispatch at most this many jobs', integerIn(1, 20))
      .action(async (opts, cmd) => {
        const ctx = await kit.context(cmd);
        await ctx.call(await ctx.control(), {
          method: 'POST',
          path: '/api/v1/queue/poll',
          query: { limit: opts.limit },
        });
      }),
    'gco --region us-east-1 queue poll --limit 10',
  );

  examples(
    queue
      .command('stats')
      .description('queued jobs by region and state')
      .action(async (_opts, cmd) => {
        const ctx = await kit.context(cmd);
        await ctx.call(await ctx.control(), { method: 'GET', path: '/api/v1/queue/stats' }, queueStatsView);
      }),
    'gco queue stats',
  );
  return queue;
}

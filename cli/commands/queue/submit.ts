/**
 * `gco queue submit`: one Job queued for a region. A submission always carries an Idempotency-Key —
 * generated per invocation unless given, and printed — so gco's own retries and a user re-running the
 * command with the same key can never queue the job twice. The answer names the Kubernetes Job the queue
 * will create (`job_name`, fixed at submission), which is printed with how to follow it.
 */
import { randomUUID } from 'node:crypto';
import { Command, Option } from '@commander-js/extra-typings';
import { examples, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import { UsageError } from '../../errors.js';
import { readSingleObject } from '../../input-files.js';
import { FINAL_QUEUE_STATES, waitAndReport } from '../../job-wait.js';
import { integerIn, keyValue, positiveNumber, regionName, waitTimeoutOption } from '../../options.js';
import { recordOf, text } from '../../views/common.js';
import type { QueuedJobSubmitted } from '../../../contracts/api/manifest-processor-central.js';
import { QUEUE_WAIT_MAX_SECONDS, QUEUE_WAIT_SECONDS, queuedJobPath, queuedRecordView } from './common.js';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

interface SubmitOptions {
  file: string;
  targetRegion: string;
  namespace?: string;
  priority?: number;
  label?: Record<string, string>;
  maxSpotPrice?: number;
  spotInstanceType?: string;
  idempotencyKey?: string;
  wait?: boolean;
  waitTimeout: number;
}

export function submitCommand(kit: CommandKit) {
  return examples(
    new Command('submit')
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
      .addOption(waitTimeoutOption(QUEUE_WAIT_SECONDS, QUEUE_WAIT_MAX_SECONDS))
      .action(async (file, opts, cmd) => runSubmit({ ...opts, file }, await kit.context(cmd))),
    'gco queue submit job.yaml --target-region us-east-1 --priority 80 -l team=a',
    'gco queue submit job.yaml --target-region us-east-1 --idempotency-key nightly-2025-06-01',
    'gco queue submit gpu.yaml --target-region us-east-1 --max-spot-price 0.9 --spot-instance-type g5.xlarge',
  );
}

async function runSubmit(options: SubmitOptions, ctx: CommandContext): Promise<void> {
  if ((options.maxSpotPrice === undefined) !== (options.spotInstanceType === undefined)) {
    throw new UsageError('--max-spot-price and --spot-instance-type go together');
  }
  const key = options.idempotencyKey ?? randomUUID();
  if (!IDEMPOTENCY_KEY.test(key))
    throw new UsageError('--idempotency-key: 1 to 255 printable ASCII characters, no spaces');
  const manifest = await readSingleObject(options.file, ctx.io, 'Job manifest');
  if (options.idempotencyKey === undefined) {
    ctx.out.info(`idempotency key: ${key} (to retry this submission safely: --idempotency-key ${key})`);
  }
  const client = await ctx.control();
  const reply = await ctx.call(
    client,
    {
      method: 'POST',
      path: '/api/v1/queue/jobs',
      body: submissionBody(options, manifest),
      headers: { 'idempotency-key': key },
      idempotent: true,
    },
    queuedRecordView,
  );
  const queued = recordOf<QueuedJobSubmitted>(reply.json);
  const id = text(queued.job_id);
  if (queued.idempotent_replay === true)
    ctx.out.info('already queued with this key: this is the original job');
  if (typeof queued.job_name === 'string') {
    ctx.out.info(
      `queued job ${id} runs as Job ${text(queued.namespace)}/${queued.job_name}; follow it with: gco queue logs ${id} --follow`,
    );
  }
  if (options.wait === true) {
    await waitAndReport(client, [{ label: `queued job ${id}`, path: queuedJobPath(id) }], ctx.out, {
      finalStates: FINAL_QUEUE_STATES,
      timeoutMs: options.waitTimeout * 1000,
      view: queuedRecordView,
    });
  }
}

/** The documented body: only the fields given. */
function submissionBody(options: SubmitOptions, manifest: Record<string, unknown>) {
  return {
    manifest,
    target_region: options.targetRegion,
    namespace: options.namespace,
    priority: options.priority,
    labels: options.label,
    max_spot_price: options.maxSpotPrice,
    spot_instance_type: options.spotInstanceType,
  };
}

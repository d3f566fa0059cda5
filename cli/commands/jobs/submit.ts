/** `gco jobs submit`: manifests submitted as one request (POST /api/v1/manifests), optionally waited for. */
import { Command, Option } from '@commander-js/extra-typings';
import { apiErrorOf, reportRefusals } from '../../api-errors.js';
import { examples, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import { ApiError } from '../../errors.js';
import { readManifests } from '../../input-files.js';
import { recordOf } from '../../views/common.js';
import { submissionView, type SubmissionReport } from '../../views/jobs.js';
import { appliedJobs, namespaceOption, waitForJobs, waitTimeoutOption } from './common.js';

interface SubmitOptions {
  files: string[];
  namespace: string;
  dryRun?: true;
  validateOnly?: boolean;
  wait?: boolean;
  waitTimeout: number;
}

export function submitCommand(kit: CommandKit) {
  return examples(
    new Command('submit')
      .description('submit manifests (YAML or JSON, several documents per file) as one request')
      .argument('<files...>', 'manifest files; - reads stdin')
      .addOption(namespaceOption('namespace of manifests that name none'))
      .addOption(
        new Option(
          '--dry-run',
          'check everything (policy and cluster dry run), apply nothing: reports "would create"',
        ),
      )
      .addOption(
        new Option('--validate-only', 'validate only (POST /api/v1/manifests/validate)').conflicts('dryRun'),
      )
      .addOption(
        new Option('--wait', 'wait until every submitted Job has finished').conflicts([
          'dryRun',
          'validateOnly',
        ]),
      )
      .addOption(waitTimeoutOption())
      .action(async (files, opts, cmd) => runSubmit({ ...opts, files }, await kit.context(cmd))),
    'gco jobs submit job.yaml --wait',
    'gco jobs submit -n team-a train.yaml eval.yaml --dry-run',
    'kubectl create job hello --image=busybox --dry-run=client -o yaml -- echo hi | gco jobs submit -',
  );
}

async function runSubmit(options: SubmitOptions, ctx: CommandContext): Promise<void> {
  const manifests = await readManifests(options.files, ctx.io);
  const client = await ctx.control();
  const body = {
    manifests,
    namespace: options.namespace,
    dry_run: options.dryRun,
  };
  const reply = await client.send({
    method: 'POST',
    path: options.validateOnly === true ? '/api/v1/manifests/validate' : '/api/v1/manifests',
    body,
  });
  const report = recordOf<SubmissionReport>(reply.json);
  // A 400 with a per-resource report is the answer to print (it says which manifest failed).
  const isReport = Array.isArray(report.resources);
  if (isReport) ctx.out.reply(reply, submissionView);
  // The error names each refused resource and why (an unknown field's path, an immutable field), so it
  // reaches stderr in every output format, not only in the table.
  if (reply.status !== 200) {
    if (!isReport) throw apiErrorOf(reply);
    throw new ApiError(`Not applied (HTTP ${reply.status}): ${refusals(report)}`, undefined, reply.status);
  }
  if (report.valid === false) throw new ApiError(`The manifests are not valid: ${refusals(report)}`);
  if (options.wait === true) await waitForJobs(ctx, client, appliedJobs(report), options.waitTimeout);
}

/**
 * What was refused, on one line: the request's own refusal (a namespace that is not allowed) and each
 * failed resource (`Job/train: unknown field "spec.backofLimit": …`).
 */
const refusals = (report: Record<string, unknown>): string => reportRefusals(report).join('; ');

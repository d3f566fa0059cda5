/**
 * `gco jobs get|events|pods|metrics`: jobs, or one of their sub-resources
 * (GET /api/v1/jobs/{namespace}/{name}[/events|/pods|/metrics]). The four verbs differ only in the path
 * suffix and the view, so they are one definition each in a table. Each takes several names (`NAME` or
 * `job/NAME`, so `gco jobs list -o name | xargs gco jobs get` works), as `kubectl get` does.
 */
import { Command } from '@commander-js/extra-typings';
import { apiErrorOf } from '../../api-errors.js';
import { examples, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import type { View } from '../../output.js';
import { jobEventsView, jobListView, jobMetricsView, jobPodsView, jobView } from '../../views/jobs.js';
import { jobNameOf, jobPath, namespaceOption } from './common.js';

interface JobResource {
  verb: string;
  description: string;
  /** Path segments after the job's own path. */
  suffix: readonly string[];
  view: View;
  example: string;
}

const JOB_RESOURCES: readonly JobResource[] = [
  {
    verb: 'get',
    description: 'show a job, with where its pods run',
    suffix: [],
    view: jobView,
    example: 'gco jobs list -o name | xargs gco jobs get',
  },
  {
    verb: 'events',
    description: 'show the events of a job and of its pods',
    suffix: ['events'],
    view: jobEventsView,
    example: 'gco jobs events train',
  },
  {
    verb: 'pods',
    description: 'show the pods of a job and the hardware each landed on',
    suffix: ['pods'],
    view: jobPodsView,
    example: 'gco jobs pods train',
  },
  {
    verb: 'metrics',
    description: "show the live CPU and memory use of a job's pods",
    suffix: ['metrics'],
    view: jobMetricsView,
    example: 'gco jobs metrics train',
  },
];

/** The commands of the four verbs, in help order. */
export function getCommands(kit: CommandKit) {
  return JOB_RESOURCES.map((resource) =>
    examples(
      new Command(resource.verb)
        .description(resource.description)
        .argument('<names...>', 'job names (NAME or job/NAME)')
        .addOption(namespaceOption())
        .action(async (names, opts, cmd) =>
          runGet(resource, { ...opts, names: names.map(jobNameOf) }, await kit.context(cmd)),
        ),
      resource.example,
    ),
  );
}

async function runGet(
  resource: Pick<JobResource, 'suffix' | 'view'>,
  jobs: { namespace: string; names: string[] },
  ctx: CommandContext,
): Promise<void> {
  const client = await ctx.control();
  const replies = [];
  for (const name of jobs.names) {
    replies.push(
      await client.send({ method: 'GET', path: jobPath(jobs.namespace, name, ...resource.suffix) }),
    );
  }
  // As kubectl get: what was found is printed, then the first failure ends the run with its error.
  const found = replies.filter((r) => r.status === 200);
  if (resource.suffix.length === 0) {
    ctx.out.replies(found, resource.view, { view: jobListView, of: (bodies) => ({ jobs: bodies }) });
  } else {
    for (const reply of found) ctx.out.reply(reply, resource.view);
  }
  const failed = replies.find((r) => r.status !== 200);
  if (failed !== undefined) throw apiErrorOf(failed);
}

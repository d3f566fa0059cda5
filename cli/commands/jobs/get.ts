/**
 * `gco jobs get|events|pods|metrics`: one job, or one of its sub-resources
 * (GET /api/v1/jobs/{namespace}/{name}[/events|/pods|/metrics]). The four verbs differ only in the path
 * suffix and the view, so they are one definition each in a table.
 */
import { Command } from '@commander-js/extra-typings';
import { examples, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import type { View } from '../../output.js';
import { jobEventsView, jobMetricsView, jobPodsView, jobView } from '../../views/jobs.js';
import { jobPath, namespaceOption, type JobRef } from './common.js';

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
    example: 'gco jobs get train -n svc-jobs -o yaml',
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
        .argument('<name>', 'job name')
        .addOption(namespaceOption())
        .action(async (name, opts, cmd) => runGet(resource, { ...opts, name }, await kit.context(cmd))),
      resource.example,
    ),
  );
}

async function runGet(
  resource: Pick<JobResource, 'suffix' | 'view'>,
  job: JobRef,
  ctx: CommandContext,
): Promise<void> {
  await ctx.call(
    await ctx.control(),
    { method: 'GET', path: jobPath(job.namespace, job.name, ...resource.suffix) },
    resource.view,
  );
}

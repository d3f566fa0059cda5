/**
 * `gco templates …`: job templates with `{{placeholder}}` parameters and jobs created from them
 * (docs/templates.md). `--param key=value` values are read as YAML scalars, so `workers=3` is the number
 * 3 and `debug=true` a boolean (quote to keep a string: `tag='"3"'`).
 */
import { Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { DEFAULT_JOB_NAMESPACE, examples, type CommandKit } from '../command-kit.js';
import { UsageError } from '../errors.js';
import { pathOf } from '../http.js';
import { readSingleObject } from '../input-files.js';
import { keyValue } from '../options.js';
import { createdJobView, deletedView, templateListView, templateView } from '../views.js';
import { createdJob, waitForJobs, waitTimeoutOption } from './jobs.js';

/** `--param` strings as typed values (YAML scalars). */
export async function parameterValues(
  raw: Record<string, string> | undefined,
): Promise<Record<string, unknown> | undefined> {
  if (raw === undefined) return undefined;
  const { parse } = await import('yaml');
  const values: Record<string, unknown> = {};
  for (const [key, text] of Object.entries(raw)) {
    try {
      values[key] = parse(text) as unknown;
    } catch {
      throw new UsageError(`--param ${key}: "${text}" is not a YAML value (quote it to pass a string)`);
    }
  }
  return values;
}

const templatePath = (name: string) => pathOf('api', 'v1', 'templates', name);

export function templatesCommand(kit: CommandKit): CommandUnknownOpts {
  const templates = examples(
    new Command('templates').description('reusable job templates with parameters'),
    'gco templates run train --name train-0601 -p epochs=20',
  );

  examples(
    templates
      .command('create')
      .description('store a job template (a batch/v1 Job manifest with {{placeholders}})')
      .argument('<name>', 'template name (1–63 characters)')
      .argument('<file>', 'the manifest template (YAML or JSON); - reads stdin')
      .option('--description <text>', 'what it is for')
      .option('-p, --param <key=value>', 'default parameter value (repeatable)', keyValue)
      .action(async (name, file, opts, cmd) => {
        const ctx = await kit.context(cmd);
        const manifest = await readSingleObject(file, ctx.io, 'manifest template');
        const parameters = await parameterValues(opts.param);
        await ctx.call(
          await ctx.control(),
          {
            method: 'POST',
            path: '/api/v1/templates',
            body: {
              name,
              manifest,
              ...(opts.description !== undefined ? { description: opts.description } : {}),
              ...(parameters !== undefined ? { parameters } : {}),
            },
          },
          templateView,
        );
      }),
    'gco templates create train train-template.yaml --description "nightly training" -p epochs=10',
  );

  examples(
    templates
      .command('list')
      .description('list templates')
      .action(async (_opts, cmd) => {
        const ctx = await kit.context(cmd);
        await ctx.call(await ctx.control(), { method: 'GET', path: '/api/v1/templates' }, templateListView);
      }),
    'gco templates list',
  );

  examples(
    templates
      .command('get')
      .description('show a template with its manifest')
      .argument('<name>', 'template name')
      .action(async (name, _opts, cmd) => {
        const ctx = await kit.context(cmd);
        await ctx.call(await ctx.control(), { method: 'GET', path: templatePath(name) }, templateView);
      }),
    'gco templates get train -o yaml',
  );

  examples(
    templates
      .command('delete')
      .description('delete a template (jobs made from it stay)')
      .argument('<name>', 'template name')
      .action(async (name, _opts, cmd) => {
        const ctx = await kit.context(cmd);
        await ctx.call(await ctx.control(), { method: 'DELETE', path: templatePath(name) }, deletedView);
      }),
    'gco templates delete train',
  );

  examples(
    templates
      .command('run')
      .description('create a job from a template')
      .argument('<template>', 'template name')
      .requiredOption('--name <job>', 'name of the new job')
      .option('-n, --namespace <namespace>', `namespace of the job (server default ${DEFAULT_JOB_NAMESPACE})`)
      .option('-p, --param <key=value>', 'parameter value (repeatable; overrides the defaults)', keyValue)
      .option('--wait', 'wait until the job has finished')
      .addOption(waitTimeoutOption())
      .action(async (template, opts, cmd) => {
        const ctx = await kit.context(cmd);
        const client = await ctx.control();
        const parameters = await parameterValues(opts.param);
        const reply = await ctx.call(
          client,
          {
            method: 'POST',
            path: pathOf('api', 'v1', 'jobs', 'from-template', template),
            body: {
              name: opts.name,
              ...(opts.namespace !== undefined ? { namespace: opts.namespace } : {}),
              ...(parameters !== undefined ? { parameters } : {}),
            },
          },
          createdJobView,
        );
        if (opts.wait === true) await waitForJobs(ctx, client, createdJob(reply.json), opts.waitTimeout);
      }),
    'gco templates run train --name train-0601 -p epochs=20 --wait',
  );
  return templates;
}

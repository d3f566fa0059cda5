/** `gco templates create`: a job template (a batch/v1 Job manifest with {{placeholders}}). */
import { Command } from '@commander-js/extra-typings';
import { examples, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import { readSingleObject } from '../../input-files.js';
import { keyValue } from '../../options.js';
import { templateView } from '../../views/templates.js';
import { parameterValues } from './common.js';

interface CreateOptions {
  name: string;
  file: string;
  description?: string;
  param?: Record<string, string>;
}

export function createCommand(kit: CommandKit) {
  return examples(
    new Command('create')
      .description('store a job template (a batch/v1 Job manifest with {{placeholders}})')
      .argument('<name>', 'template name (1–63 characters)')
      .argument('<file>', 'the manifest template (YAML or JSON); - reads stdin')
      .option('--description <text>', 'what it is for')
      .option('-p, --param <key=value>', 'default parameter value (repeatable)', keyValue)
      .action(async (name, file, opts, cmd) => runCreate({ ...opts, name, file }, await kit.context(cmd))),
    'gco templates create train train-template.yaml --description "nightly training" -p epochs=10',
  );
}

async function runCreate(options: CreateOptions, ctx: CommandContext): Promise<void> {
  const manifest = await readSingleObject(options.file, ctx.io, 'manifest template');
  const parameters = await parameterValues(options.param);
  const body = { name: options.name, manifest, description: options.description, parameters };
  await ctx.call(await ctx.control(), { method: 'POST', path: '/api/v1/templates', body }, templateView);
}

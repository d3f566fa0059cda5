/**
 * `gco templates get|delete`: one template by name. The two verbs differ only in the method and the
 * view, so they are one definition each in a table.
 */
import { Command } from '@commander-js/extra-typings';
import { examples, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import type { View } from '../../output.js';
import { deletedViewOf } from '../../views/common.js';
import { templateView } from '../../views/templates.js';
import { templatePath } from './common.js';

interface TemplateVerb {
  verb: 'get' | 'delete';
  description: string;
  method: 'GET' | 'DELETE';
  view: View;
  example: string;
}

const TEMPLATE_VERBS: readonly TemplateVerb[] = [
  {
    verb: 'get',
    description: 'show a template with its manifest',
    method: 'GET',
    view: templateView,
    example: 'gco templates get train -o yaml',
  },
  {
    verb: 'delete',
    description: 'delete a template (jobs made from it stay)',
    method: 'DELETE',
    view: deletedViewOf('template'),
    example: 'gco templates delete train',
  },
];

/** The commands of the two verbs, in help order. */
export function getCommands(kit: CommandKit) {
  return TEMPLATE_VERBS.map((verb) =>
    examples(
      new Command(verb.verb)
        .description(verb.description)
        .argument('<name>', 'template name')
        .action(async (name, _opts, cmd) => runGet(verb, { name }, await kit.context(cmd))),
      verb.example,
    ),
  );
}

async function runGet(
  verb: Pick<TemplateVerb, 'method' | 'view'>,
  options: { name: string },
  ctx: CommandContext,
): Promise<void> {
  await ctx.call(await ctx.control(), { method: verb.method, path: templatePath(options.name) }, verb.view);
}

/**
 * `gco inference promote|rollback|stop|start`: the changes that take nothing but the endpoint's name. They
 * differ only in their path and help, so they are one definition each in a table.
 */
import { Command } from '@commander-js/extra-typings';
import { examples, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import {
  endpointName,
  endpointPath,
  expectedGenerationOption,
  sendChange,
  waitOption,
  waitTimeoutOption,
  type MutationOptions,
} from './common.js';

interface LifecycleVerb {
  verb: 'promote' | 'rollback' | 'stop' | 'start';
  description: string;
  example: string;
}

const LIFECYCLE_VERBS: readonly LifecycleVerb[] = [
  {
    verb: 'promote',
    description: 'make the canary’s image the endpoint’s image (the replaced one is kept for rollback)',
    example: 'gco inference promote llama --wait',
  },
  {
    verb: 'rollback',
    description: 'drop the canary, or restore the image the last promote replaced',
    example: 'gco inference rollback llama --wait',
  },
  {
    verb: 'stop',
    description: 'scale every region to zero; the endpoint and its settings stay',
    example: 'gco inference stop llama --wait',
  },
  {
    verb: 'start',
    description: 'run a stopped endpoint again with its replica count',
    example: 'gco inference start llama --wait',
  },
];

/** The commands of the four verbs, in help order. */
export function lifecycleCommands(kit: CommandKit) {
  return LIFECYCLE_VERBS.map((verb) =>
    examples(
      new Command(verb.verb)
        .description(verb.description)
        .argument('<name>', 'endpoint name (NAME or endpoint/NAME)', endpointName)
        .addOption(expectedGenerationOption())
        .addOption(waitOption())
        .addOption(waitTimeoutOption())
        .action(async (name, opts, cmd) => runLifecycle(verb, name, opts, await kit.context(cmd))),
      verb.example,
    ),
  );
}

async function runLifecycle(
  verb: Pick<LifecycleVerb, 'verb'>,
  name: string,
  options: MutationOptions,
  ctx: CommandContext,
): Promise<void> {
  await sendChange(ctx, name, { method: 'POST', path: endpointPath(name, verb.verb), body: {} }, options);
}

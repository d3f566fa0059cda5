/**
 * `gco manifests get|delete`: any resource manifest-processor manages, by namespace, name, kind and API
 * version (confined to the policy's allowed namespaces and kinds; docs/manifest-processor.md).
 */
import { Command, Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { examples, type CommandKit } from '../command-kit.js';
import { pathOf } from '../http.js';
import { deletedView } from '../views/common.js';

export function manifestsCommand(kit: CommandKit): CommandUnknownOpts {
  const manifests = examples(
    new Command('manifests').description('read and delete applied resources by kind and name'),
    'gco manifests get svc-jobs web',
  );
  const resourceCommand = (name: 'get' | 'delete', description: string, example: string) =>
    examples(
      manifests
        .command(name)
        .description(description)
        .argument('<namespace>', 'namespace of the resource')
        .argument('<name>', 'name of the resource')
        .addOption(new Option('--kind <kind>', 'resource kind').default('Deployment'))
        .addOption(new Option('--api-version <apiVersion>', 'API version of the kind').default('apps/v1'))
        .action(async (namespace, resource, opts, cmd) => {
          const ctx = await kit.context(cmd);
          await ctx.call(
            await ctx.control(),
            {
              method: name === 'get' ? 'GET' : 'DELETE',
              path: pathOf('api', 'v1', 'manifests', namespace, resource),
              query: { api_version: opts.apiVersion, kind: opts.kind },
            },
            name === 'delete' ? deletedView : {},
          );
        }),
      example,
    );
  resourceCommand(
    'get',
    'show the status of a resource',
    'gco manifests get svc-jobs web --kind Deployment --api-version apps/v1',
  );
  resourceCommand(
    'delete',
    'delete a resource (background propagation)',
    'gco manifests delete svc-jobs train --kind Job --api-version batch/v1',
  );
  return manifests;
}

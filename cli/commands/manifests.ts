/**
 * `gco manifests get|delete`: any resource manifest-processor manages, by namespace, name and kind
 * (confined to the policy's allowed namespaces and kinds; docs/manifest-processor.md). The API version
 * follows from the kind (kube-kinds.ts: the built-in kinds, else the platform's allowed-kinds list);
 * `--api-version` overrides it.
 */
import { Command, Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { examples, type CommandKit } from '../command-kit.js';
import type { CommandContext } from '../context.js';
import { apiErrorOf } from '../api-errors.js';
import { UsageError } from '../errors.js';
import { pathOf } from '../http.js';
import { allowedKind, builtInKind, type KindVersion } from '../kube-kinds.js';
import { recordOf } from '../views/common.js';
import { resourceDeletedView, resourceStatusView } from '../views/manifests.js';

const DEFAULT_KIND = 'Deployment';

interface ResourceOptions {
  kind: string;
  apiVersion?: string;
}

export function manifestsCommand(kit: CommandKit): CommandUnknownOpts {
  const manifests = examples(
    new Command('manifests').description('read and delete applied resources by kind and name'),
    'gco manifests get svc-jobs train --kind Job',
  );
  const resourceCommand = (name: 'get' | 'delete', description: string, ...example: string[]) =>
    examples(
      manifests
        .command(name)
        .description(description)
        .argument('<namespace>', 'namespace of the resource')
        .argument('<name>', 'name of the resource')
        .addOption(
          new Option('--kind <kind>', 'resource kind, e.g. Job, job, jobs, svc').default(DEFAULT_KIND),
        )
        .addOption(
          new Option(
            '--api-version <apiVersion>',
            "API version of the kind (default: the kind's, e.g. batch/v1 for Job)",
          ),
        )
        .action(async (namespace, resource, opts, cmd) => {
          const ctx = await kit.context(cmd);
          const { apiVersion, kind } = await resolveKind(opts, ctx);
          await ctx.call(
            await ctx.control(),
            {
              method: name === 'get' ? 'GET' : 'DELETE',
              path: pathOf('api', 'v1', 'manifests', namespace, resource),
              query: { api_version: apiVersion, kind },
            },
            name === 'delete' ? resourceDeletedView(kind) : resourceStatusView(kind),
          );
        }),
      ...example,
    );
  resourceCommand(
    'get',
    'show the status of a resource',
    'gco manifests get svc-jobs train --kind Job',
    'gco manifests get svc-jobs web --kind deploy',
  );
  resourceCommand(
    'delete',
    'delete a resource (background propagation)',
    'gco manifests delete svc-jobs train --kind Job',
  );
  return manifests;
}

/** The kind's API version: `--api-version`, else the built-in table, else the platform's allowed kinds. */
async function resolveKind(options: ResourceOptions, ctx: CommandContext): Promise<KindVersion> {
  const builtIn = builtInKind(options.kind);
  if (options.apiVersion !== undefined) {
    return { apiVersion: options.apiVersion, kind: builtIn?.kind ?? options.kind };
  }
  if (builtIn !== undefined) return builtIn;
  const reply = await (await ctx.control()).send({ method: 'GET', path: '/api/v1/policy' });
  if (reply.status !== 200) throw apiErrorOf(reply);
  const policy = recordOf<{ kinds: unknown }>(recordOf<{ policy: unknown }>(reply.json).policy);
  const allowed = recordOf<{ allowed: unknown }>(policy.kinds).allowed;
  const found = allowedKind(options.kind, Array.isArray(allowed) ? allowed : []);
  if (found !== undefined) return found;
  throw new UsageError(
    `--kind ${options.kind}: not a built-in kind, and the platform's allowed kinds name no version of it`,
    `give the version with --api-version (e.g. --api-version example.com/v1); \`gco policy\` lists the allowed kinds`,
  );
}

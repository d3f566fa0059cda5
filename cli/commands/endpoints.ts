/**
 * `gco endpoints`: where this run's requests would go (URL and signing region of each API), resolved
 * exactly as the other commands resolve them; a quick check of discovery, `--local` and `--region`.
 */
import { Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { examples, type CommandKit } from '../command-kit.js';
import { CliError } from '../errors.js';
import type { ApiClient } from '../http.js';
import { renderTable } from '../table.js';

export function endpointsCommand(kit: CommandKit): CommandUnknownOpts {
  return examples(
    new Command('endpoints')
      .description('show which API URLs and regions the commands use')
      .action(async (_opts, cmd) => {
        const ctx = await kit.context(cmd);
        const rows: { use: string; url?: string; region?: string; error?: string }[] = [];
        let firstError: CliError | undefined;
        for (const [use, client] of [
          ['control plane, inference', () => ctx.control()],
          ['aggregate (status, health, --all-regions)', () => ctx.global()],
          ['analytics', () => ctx.analytics()],
        ] as const satisfies readonly (readonly [string, () => Promise<ApiClient>])[]) {
          try {
            const { target } = await client();
            rows.push({ use, url: target.url, region: target.region });
          } catch (error) {
            if (!(error instanceof CliError)) throw error;
            firstError ??= error;
            rows.push({ use, error: error.message });
          }
        }
        if (rows.every((r) => r.error !== undefined) && firstError !== undefined) throw firstError;
        ctx.out.value(rows, {
          render: () =>
            renderTable(rows, [
              ['api', (r) => r.use],
              ['url', (r) => r.url ?? `(${r.error ?? ''})`],
              ['signing region', (r) => r.region],
            ]),
        });
      }),
    'gco endpoints',
    'gco --local --region us-east-1 endpoints',
  );
}

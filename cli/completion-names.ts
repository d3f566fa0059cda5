/**
 * The names shell completion offers where a command takes the name of something on the platform
 * (`gco completion __names job`, called by the completion script on Tab): read from the API's list
 * routes. Completion must never get in the way, so the caller gives it a short timeout and ignores any
 * failure (no output, exit 0).
 */
import type { CommandContext } from './context.js';
import { rowsOf, recordOf, text } from './views/common.js';

export const NAMED_RESOURCES = [
  'job',
  'queued-job',
  'endpoint',
  'template',
  'webhook',
  'application',
] as const;
export type NamedResource = (typeof NAMED_RESOURCES)[number];

/** Where each resource is listed: the client, the route, the list's key and the fields that name a row. */
const LISTS: Readonly<
  Record<
    NamedResource,
    { api: 'control' | 'analytics'; path: string; key: string; fields: readonly string[]; namespaced?: true }
  >
> = {
  job: { api: 'control', path: '/api/v1/jobs', key: 'jobs', fields: ['name'], namespaced: true },
  'queued-job': {
    api: 'control',
    path: '/api/v1/queue/jobs',
    key: 'jobs',
    fields: ['job_id', 'job_name'],
    namespaced: true,
  },
  endpoint: { api: 'control', path: '/api/v1/inference/endpoints', key: 'endpoints', fields: ['name'] },
  template: { api: 'control', path: '/api/v1/templates', key: 'templates', fields: ['name'] },
  webhook: { api: 'control', path: '/api/v1/webhooks', key: 'webhooks', fields: ['webhook_id'] },
  application: { api: 'analytics', path: '/applications', key: 'Applications', fields: ['ApplicationId'] },
};

/** The names of `resource` (in `namespace` where it has one), sorted, without duplicates. */
export async function resourceNames(
  ctx: CommandContext,
  resource: NamedResource,
  namespace: string | undefined,
): Promise<string[]> {
  const list = LISTS[resource];
  const client = list.api === 'analytics' ? await ctx.analytics() : await ctx.control();
  const reply = await client.send({
    method: 'GET',
    path: list.path,
    query: list.namespaced === true ? { namespace, limit: 1000 } : {},
  });
  if (reply.status !== 200) return [];
  const rows = rowsOf<Record<string, unknown>>(recordOf<Record<string, unknown>>(reply.json)[list.key]);
  const names = rows.flatMap((row) => list.fields.map((field) => text(row[field])).filter((n) => n !== ''));
  return [...new Set(names)].sort();
}

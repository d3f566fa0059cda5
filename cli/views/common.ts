/**
 * What the human views share (docs/cli.md, "Output"). The API's answers arrive as unchecked JSON, so a
 * view reads an answer through its contract type (contracts/api, type-only imports: the bundle loads no
 * schema) as `Partial<…>`: an older server's answer, a missing or odd field prints as `-` (table.ts
 * cellText) instead of failing, and a list that is not a list prints as empty.
 */
import type {
  QueuedJob,
  TemplateDeleted,
  WebhookDeleted,
} from '../../contracts/api/manifest-processor-central.js';
import type { JobDeleted, ResourceDeleted } from '../../contracts/api/manifest-processor.js';
import type { View } from '../output.js';
import { renderFields, renderTable, type Column } from '../table.js';

/** One row or record of an answer as a view reads it: any field may be missing. */
export type Fields<T> = Partial<T>;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The answer as a record of `T`'s fields, or no fields when it is not a JSON object. */
export const recordOf = <T extends object>(v: unknown): Fields<T> => (isRecord(v) ? (v as Fields<T>) : {});

/** The JSON objects of a list (anything else in it, or a non-list, is left out). */
export const rowsOf = <T extends object>(v: unknown): Fields<T>[] =>
  Array.isArray(v) ? (v.filter(isRecord) as Fields<T>[]) : [];

/** A scalar as text; nothing as ''; objects and lists as compact JSON. */
export const text = (v: unknown): string =>
  typeof v === 'string'
    ? v
    : typeof v === 'number' || typeof v === 'boolean'
      ? String(v)
      : v === undefined || v === null
        ? ''
        : JSON.stringify(v);

/** Text ending with exactly the newline it needs (logs). */
export const lines = (logs: string): string => (logs === '' || logs.endsWith('\n') ? logs : `${logs}\n`);

/** How a view of an answer of type `T` renders it and names what it holds (see View). */
interface TypedView<T> {
  render: (body: Fields<T>) => string | undefined;
  ids?: (body: Fields<T>) => string[];
  kind?: string;
  names?: (body: Fields<T>) => string[];
}

/** A view of an answer of type `T`: render, ids and names read its fields. */
export function viewOf<T extends object>({ render, ids, kind, names }: TypedView<T>): View {
  return {
    render: (body) => render(recordOf<T>(body)),
    ...(ids !== undefined ? { ids: (body: unknown) => ids(recordOf<T>(body)) } : {}),
    ...(kind !== undefined ? { kind } : {}),
    ...(names !== undefined ? { names: (body: unknown) => names(recordOf<T>(body)) } : {}),
  };
}

/** The list under `key` of the answer as a table; `kind` for `-o name` (`kind/id` of each row). */
export function listView<Row extends object>(
  key: string,
  columns: readonly Column<Fields<Row>>[],
  id: (row: Fields<Row>) => string,
  kind?: string,
): View {
  const rows = (body: unknown) => rowsOf<Row>(recordOf<Record<string, unknown>>(body)[key]);
  return {
    render: (body) => renderTable(rows(body), columns),
    ids: (body) => rows(body).map(id),
    ...(kind !== undefined ? { kind } : {}),
  };
}

/** One record: the named scalar fields as a FIELD/VALUE table (the rest is left to -o yaml). */
export function fieldsView<T extends object>(
  fields: readonly (keyof T & string)[],
  id: (body: Fields<T>) => string,
  kind?: string,
): View {
  return viewOf<T>({
    render: (body) => renderFields(fields.map((f) => [f, body[f]] as const)),
    ids: (body) => [id(body)],
    ...(kind !== undefined ? { kind } : {}),
  });
}

/** What a delete answers: the deleted resource's identity (or a bare message). */
type Deleted = Pick<WebhookDeleted, 'webhook_id'> &
  Pick<JobDeleted | ResourceDeleted | TemplateDeleted, 'name'> &
  Pick<QueuedJob, 'job_id'>;

/** What a delete answers; without a kind `-o name` is refused (deletedViewOf and views/manifests.ts add one). */
export const deletedView: View = {
  render: (body) => (isRecord(body) ? renderFields(Object.entries(body)) : `${text(body)}\n`),
  ids: (body) => {
    if (!isRecord(body)) return [text(body)];
    const deleted = body as Fields<Deleted>;
    return [text(deleted.webhook_id ?? deleted.name ?? deleted.job_id)];
  },
};

/** What a delete answers, with the kind of what was deleted for `-o name`. */
export const deletedViewOf = (kind: string): View => ({ ...deletedView, kind });

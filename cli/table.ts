/**
 * Human tables (cli-table3) in the plain style of kubectl: a header row, columns padded with two
 * spaces, no borders and no colours, so they read the same in any terminal and survive copy and paste.
 */
import type TableConstructor from 'cli-table3';

export type Column<T> = readonly [header: string, cell: (row: T) => unknown];

const NO_BORDERS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: '  ',
};

let Table: typeof TableConstructor | undefined;

/** Loads cli-table3 (output.ts loadOutputLibraries: only when tables are printed). */
export async function loadTableLibrary(): Promise<void> {
  Table ??= (await import('cli-table3')).default;
}

/** One cell's text: `-` for nothing, lists joined with commas, objects as compact JSON. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  if (typeof value === 'string') return value.replace(/\s*\n\s*/g, ' ');
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  if (Array.isArray(value)) return value.length === 0 ? '-' : value.map(cellText).join(',');
  return JSON.stringify(value);
}

/** The rows as a table (header in upper case); `emptyText` when there are no rows. */
export function renderTable<T>(
  rows: readonly T[],
  columns: readonly Column<T>[],
  emptyText = 'No resources found.',
): string {
  if (rows.length === 0) return `${emptyText}\n`;
  if (Table === undefined) throw new Error('loadTableLibrary() must run before a table is rendered');
  const table = new Table({
    head: columns.map(([header]) => header.toUpperCase()),
    chars: NO_BORDERS,
    style: { 'padding-left': 0, 'padding-right': 0, head: [], border: [], compact: true },
  });
  for (const row of rows) table.push(columns.map(([, cell]) => cellText(cell(row))));
  // cli-table3 pads the last column too; trailing blanks only get in the way of copy and paste.
  return `${table
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')}\n`;
}

/** A two-column FIELD/VALUE table for one object's scalar fields. */
export function renderFields(fields: readonly (readonly [string, unknown])[]): string {
  return renderTable(fields, [
    ['field', ([name]) => name],
    ['value', ([, value]) => value],
  ]);
}

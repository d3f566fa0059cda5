/**
 * Human tables (cli-table3) in the plain style of kubectl: a header row, columns padded with two
 * spaces, no borders. The same rows go to a terminal and to a pipe; only on a terminal is the header
 * bold (unless NO_COLOR, https://no-color.org) and a table wider than the terminal wrapped in its widest
 * column, while a pipe always gets whole cells, one row a line, for grep and awk.
 */
import type TableConstructor from 'cli-table3';

/** A column: its header, its cell, and `wide` for the extra columns only `-o wide` shows (as kubectl). */
export type Column<T> = readonly [header: string, cell: (row: T) => unknown, only?: 'wide'];

/** How the tables of one print are drawn (output.ts sets it for the duration of a view's render). */
export interface TableStyle {
  /** `-o wide`: the extra columns too. */
  readonly wide: boolean;
  /** Set when stdout is a terminal. */
  readonly terminal?: { readonly columns: number; readonly colour: boolean };
}

const PLAIN: TableStyle = { wide: false };
let style: TableStyle = PLAIN;

/**
 * Runs a (synchronous) render with this table style. A view renders whole tables in one call, so the
 * style is scoped to that call instead of being threaded through every view's columns.
 */
export function withTableStyle<R>(next: TableStyle, render: () => R): R {
  const previous = style;
  style = next;
  try {
    return render();
  } finally {
    style = previous;
  }
}

/** Narrowest a wrapped column becomes. */
const MIN_WRAPPED_WIDTH = 12;
const GAP = 2;

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
  const shown = columns.filter(([, , only]) => only === undefined || style.wide);
  const head = shown.map(([header]) => header.toUpperCase());
  const cells = rows.map((row) => shown.map(([, cell]) => cellText(cell(row))));
  const widths = style.terminal === undefined ? undefined : fitted(head, cells, style.terminal.columns);
  const bold = style.terminal?.colour === true;
  const table = new Table({
    head: bold ? head.map((h) => `\u001b[1m${h}\u001b[22m`) : head,
    chars: NO_BORDERS,
    style: { 'padding-left': 0, 'padding-right': 0, head: [], border: [], compact: true },
    ...(widths !== undefined ? { colWidths: widths, wordWrap: true } : {}),
  });
  for (const row of cells) table.push(row);
  // cli-table3 pads the last column too; trailing blanks only get in the way of copy and paste.
  return `${table
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')}\n`;
}

/**
 * Column widths that fit the terminal, or undefined when the table fits as it is: the widest column
 * gives up the excess (down to MIN_WRAPPED_WIDTH), then the next widest.
 */
function fitted(head: readonly string[], cells: readonly string[][], terminalColumns: number) {
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((row) => (row[i] ?? '').length)));
  let excess = widths.reduce((sum, w) => sum + w, 0) + GAP * (widths.length - 1) - terminalColumns;
  if (excess <= 0 || terminalColumns <= 0) return undefined;
  for (const i of widths.map((_, i) => i).sort((a, b) => (widths[b] ?? 0) - (widths[a] ?? 0))) {
    const width = widths[i] ?? 0;
    const cut = Math.min(excess, Math.max(0, width - MIN_WRAPPED_WIDTH));
    widths[i] = width - cut;
    excess -= cut;
    if (excess <= 0) break;
  }
  return widths;
}

/** A two-column FIELD/VALUE table for one object's scalar fields. */
export function renderFields(fields: readonly (readonly [string, unknown])[]): string {
  return renderTable(fields, [
    ['field', ([name]) => name],
    ['value', ([, value]) => value],
  ]);
}

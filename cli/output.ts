/**
 * What a command prints on stdout, in the chosen format (docs/cli.md, "Output"; the formats follow
 * kubectl's, https://kubernetes.io/docs/reference/kubectl/#output-options):
 * - `table` (the default, on a terminal and in a pipe alike) and `wide`: the command's human view — a
 *   table, text, or YAML for details; `wide` adds the views' extra columns;
 * - `name`: `kind/name` of each resource in the answer, one per line (what `xargs` and `$(...)` take);
 * - `json`: every API answer's body exactly as received, one per line (so several answers are NDJSON);
 * - `yaml`: the same bodies as YAML documents.
 * `--query` selects from each JSON answer first (query.ts); `--quiet` makes tables print only the
 * identifiers. Notes, progress and summaries go to stderr (silenced by `--quiet`), so stdout stays
 * parseable.
 */
import type * as Yaml from 'yaml';
import { UsageError } from './errors.js';
import type { ApiReply } from './http.js';
import type { CliIo } from './io.js';
import type { OutputFormat } from './output-format.js';
import { queryLines, type Query } from './query.js';
import { loadTableLibrary, withTableStyle, type TableStyle } from './table.js';

export interface View {
  /** The human rendering; YAML of the body when absent or when it returns undefined. */
  render?(body: unknown): string | undefined;
  /** The identifiers of what the answer holds, one per resource: what `--quiet` prints. */
  ids?(body: unknown): string[];
  /** The kind of resource `ids` names: `-o name` prints `kind/id` (`job/train`). */
  kind?: string;
  /** `-o name` of an answer that holds several kinds (a manifest report): `kind/name` each. */
  names?(body: unknown): string[];
}

/** What `-o name` prints for the answer, or undefined when the view names nothing. */
function namesOf(view: View, body: unknown): string[] | undefined {
  if (view.names !== undefined) return view.names(body);
  if (view.kind === undefined || view.ids === undefined) return undefined;
  const kind = view.kind;
  return view.ids(body).map((id) => `${kind}/${id}`);
}

let yaml: typeof Yaml | undefined;

/**
 * Loads what the format renders with (YAML for yaml and the tables, cli-table3 for the tables) before
 * the first output: `-o json`, `-o name` and `--help` never load them, which keeps gco's start fast.
 */
export async function loadOutputLibraries(format: OutputFormat): Promise<void> {
  if (format !== 'json' && format !== 'name') yaml ??= await import('yaml');
  if (format === 'table' || format === 'wide') await loadTableLibrary();
}

export function toYaml(value: unknown): string {
  if (yaml === undefined) throw new Error('loadOutputLibraries() must run before YAML output');
  return yaml.stringify(value, { lineWidth: 0 });
}

const withNewline = (text: string) => (text.endsWith('\n') || text === '' ? text : `${text}\n`);

export class Printer {
  private yamlDocuments = 0;

  constructor(
    private readonly io: CliIo,
    readonly format: OutputFormat,
    readonly quiet: boolean,
    private readonly query?: Query,
  ) {}

  /** A progress bar or live status line may be drawn on stderr. */
  get interactive(): boolean {
    return this.io.stderr.isTTY === true && !this.quiet;
  }

  /** True for the human formats (table, wide), whose notes and tables are for reading. */
  get human(): boolean {
    return this.format === 'table' || this.format === 'wide';
  }

  /** One API answer. */
  reply(reply: Pick<ApiReply, 'text' | 'json'>, view: View = {}): void {
    if (this.format === 'json' && this.query === undefined) {
      if (reply.text === '') return;
      this.io.stdout.write(withNewline(reply.text));
      return;
    }
    this.value(reply.json ?? reply.text, view);
  }

  /**
   * Several answers of one kind (`jobs get A B`): one table of them all in the human formats (`listOf`
   * wraps the bodies as the list answer `listView` renders), each answer on its own otherwise.
   */
  replies(
    replies: readonly Pick<ApiReply, 'text' | 'json'>[],
    view: View,
    list: { view: View; of: (bodies: unknown[]) => unknown },
  ): void {
    if (this.human && !this.quiet && this.query === undefined && replies.length > 1) {
      this.value(list.of(replies.map((r) => r.json ?? r.text)), list.view);
      return;
    }
    for (const reply of replies) this.reply(reply, view);
  }

  /**
   * The final state after a `--wait` (an answer after the first one): with `--quiet` tables and
   * `-o name` the identifiers were printed already, so nothing is repeated.
   */
  final(reply: Pick<ApiReply, 'text' | 'json'>, view: View = {}): void {
    if ((this.human && this.quiet) || this.format === 'name') return;
    this.reply(reply, view);
  }

  /** A value the CLI itself produced (in `json` format as one line of JSON). */
  value(value: unknown, view: View = {}): void {
    const selected = this.query === undefined ? value : this.query(value);
    switch (this.format) {
      case 'json':
        this.io.stdout.write(`${JSON.stringify(selected)}\n`);
        return;
      case 'yaml':
        if (this.yamlDocuments++ > 0) this.io.stdout.write('---\n');
        this.io.stdout.write(toYaml(selected));
        return;
      case 'name': {
        const names = namesOf(view, value);
        if (names === undefined) {
          throw new UsageError(
            '-o name: this answer names no resources',
            'use -o json, or --query to pick fields',
          );
        }
        if (names.length > 0) this.io.stdout.write(`${names.join('\n')}\n`);
        return;
      }
      case 'table':
      case 'wide': {
        if (this.query !== undefined) {
          this.io.stdout.write(queryLines(selected) ?? toYaml(selected));
          return;
        }
        if (this.quiet) {
          const ids = view.ids?.(value) ?? [];
          if (ids.length > 0) this.io.stdout.write(`${ids.join('\n')}\n`);
          return;
        }
        const text = withTableStyle(this.tableStyle(), () => view.render?.(value)) ?? toYaml(value);
        this.io.stdout.write(withNewline(text));
      }
    }
  }

  /** A human rendering on stderr (what a confirmation asks about), in the table style of stderr. */
  show(value: unknown, view: View): void {
    const style: TableStyle = { wide: false, ...this.terminalOf(this.io.stderr) };
    this.io.stderr.write(withNewline(withTableStyle(style, () => view.render?.(value)) ?? toYaml(value)));
  }

  /** Raw bytes to stdout (logs, streamed inference). */
  raw(chunk: string | Uint8Array): void {
    this.io.stdout.write(chunk);
  }

  /** A note for a human on stderr; `--quiet` silences it. */
  info(line: string): void {
    if (!this.quiet) this.io.stderr.write(`${line}\n`);
  }

  /** A warning on stderr, even with `--quiet`. */
  warn(line: string): void {
    this.io.stderr.write(`${line}\n`);
  }

  private tableStyle(): TableStyle {
    return { wide: this.format === 'wide', ...this.terminalOf(this.io.stdout) };
  }

  /** Colour and widths only for a terminal (NO_COLOR turns the colour off: https://no-color.org). */
  private terminalOf(stream: CliIo['stdout']): Pick<TableStyle, 'terminal'> {
    if (stream.isTTY !== true) return {};
    const noColour = this.io.env.NO_COLOR !== undefined && this.io.env.NO_COLOR !== '';
    return { terminal: { columns: stream.columns ?? 0, colour: !noColour } };
  }
}

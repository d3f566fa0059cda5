/**
 * What a command prints on stdout, in the chosen format (docs/cli.md, "Output"):
 * - `json`: every API answer's body exactly as received, one per line (so several answers are NDJSON);
 * - `yaml`: the same bodies as YAML documents;
 * - `table` (the default on a terminal): the command's human view — a table, text, or YAML for details;
 *   with `--quiet`, only the identifiers.
 * Notes, progress and summaries go to stderr (silenced by `--quiet`), so stdout stays parseable.
 */
import type * as Yaml from 'yaml';
import type { ApiReply } from './http.js';
import type { CliIo } from './io.js';
import type { OutputFormat } from './options.js';
import { loadTableLibrary } from './table.js';

export interface View {
  /** The human rendering; YAML of the body when absent or when it returns undefined. */
  render?(body: unknown): string | undefined;
  /** What `--quiet` prints in table format: the identifiers, one per line. */
  ids?(body: unknown): string[];
}

let yaml: typeof Yaml | undefined;

/**
 * Loads what the format renders with (YAML for yaml and table, cli-table3 for table) before the first
 * output: `-o json` and `--help` never load them, which keeps gco's start fast.
 */
export async function loadOutputLibraries(format: OutputFormat): Promise<void> {
  if (format !== 'json') yaml ??= await import('yaml');
  if (format === 'table') await loadTableLibrary();
}

export function toYaml(value: unknown): string {
  if (yaml === undefined) throw new Error('loadOutputLibraries() must run before YAML output');
  return yaml.stringify(value, { lineWidth: 0 });
}

export class Printer {
  private yamlDocuments = 0;

  constructor(
    private readonly io: CliIo,
    readonly format: OutputFormat,
    readonly quiet: boolean,
  ) {}

  /** A progress bar or live status line may be drawn on stderr. */
  get interactive(): boolean {
    return this.io.stderr.isTTY === true && !this.quiet;
  }

  /** One API answer. */
  reply(reply: Pick<ApiReply, 'text' | 'json'>, view: View = {}): void {
    if (this.format === 'json') {
      if (reply.text === '') return;
      this.io.stdout.write(reply.text.endsWith('\n') ? reply.text : `${reply.text}\n`);
      return;
    }
    this.value(reply.json ?? reply.text, view);
  }

  /**
   * The final state after a `--wait` (an answer after the first one): with `--quiet` tables the
   * identifiers were printed already, so nothing is repeated.
   */
  final(reply: Pick<ApiReply, 'text' | 'json'>, view: View = {}): void {
    if (this.format === 'table' && this.quiet) return;
    this.reply(reply, view);
  }

  /** A value the CLI itself produced (in `json` format as one line of JSON). */
  value(value: unknown, view: View = {}): void {
    switch (this.format) {
      case 'json':
        this.io.stdout.write(`${JSON.stringify(value)}\n`);
        return;
      case 'yaml':
        if (this.yamlDocuments++ > 0) this.io.stdout.write('---\n');
        this.io.stdout.write(toYaml(value));
        return;
      case 'table': {
        if (this.quiet) {
          const ids = view.ids?.(value) ?? [];
          if (ids.length > 0) this.io.stdout.write(`${ids.join('\n')}\n`);
          return;
        }
        const text = view.render?.(value) ?? toYaml(value);
        this.io.stdout.write(text.endsWith('\n') || text === '' ? text : `${text}\n`);
      }
    }
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
}

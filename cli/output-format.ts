/**
 * The output formats `-o` takes and how the format of a run is chosen (docs/cli.md, "Output"). As kubectl
 * does, the default is the human table whether stdout is a terminal or a pipe: `gco jobs list | grep x`
 * greps the same rows the user saw on screen; scripts ask for `-o json`, `-o name` or `--query`
 * (https://kubernetes.io/docs/reference/kubectl/#output-options).
 */
import { UsageError } from './errors.js';

/**
 * The human table, the API's body as JSON or YAML, and kubectl's `wide` (the table with its extra
 * columns) and `name` (`kind/name`, one per line). The one place the format of a run is decided.
 */
export const OUTPUT_FORMATS = ['table', 'json', 'yaml', 'wide', 'name'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

const isFormat = (value: string): value is OutputFormat =>
  (OUTPUT_FORMATS as readonly string[]).includes(value);

/** `-o` first, then `GCO_OUTPUT`, then `table`. */
export function outputFormatOf(flag: string | undefined, env: string | undefined): OutputFormat {
  if (flag !== undefined) {
    if (!isFormat(flag)) throw new UsageError(`-o must be one of ${OUTPUT_FORMATS.join(', ')}`);
    return flag;
  }
  if (env === undefined || env === '') return 'table';
  if (!isFormat(env)) throw new UsageError(`GCO_OUTPUT must be one of ${OUTPUT_FORMATS.join(', ')}`);
  return env;
}

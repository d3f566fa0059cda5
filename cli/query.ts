/**
 * `--query`: a JMESPath expression applied to each JSON answer before it is printed, as the AWS CLI's
 * `--query` does (https://docs.aws.amazon.com/cli/latest/userguide/cli-usage-filter.html#cli-usage-filter-client-side),
 * with the community implementation (https://jmespath.site). The library is imported only when the option
 * is given, so every other run (and `gco --version`) starts without it.
 */
import type { JSONValue } from '@jmespath-community/jmespath';
import { UsageError } from './errors.js';

/** A compiled expression: the answer in, the selection out. */
export type Query = (answer: unknown) => unknown;

/** Compiles the expression; a syntax error is a usage error (exit 2) before any request is sent. */
export async function compileQuery(expression: string): Promise<Query> {
  const { compile, TreeInterpreter } = await import('@jmespath-community/jmespath');
  let node: ReturnType<typeof compile>;
  try {
    node = compile(expression);
  } catch (error) {
    throw new UsageError(`--query: ${(error as Error).message}`, 'see https://jmespath.org/tutorial.html');
  }
  return (answer) => {
    try {
      // The answers are parsed JSON (http.ts parseJson), so they are JSON values.
      return TreeInterpreter.search(node, (answer ?? null) as JSONValue);
    } catch (error) {
      // A function called with the wrong arity or argument type is found only on evaluation.
      throw new UsageError(`--query: ${(error as Error).message}`);
    }
  };
}

const scalarText = (value: unknown): string | undefined =>
  typeof value === 'string'
    ? value
    : typeof value === 'number' || typeof value === 'boolean'
      ? String(value)
      : value === null || value === undefined
        ? ''
        : undefined;

/**
 * A selection as lines of text, the shape `xargs`, `while read` and `$(...)` want (the AWS CLI's text
 * output, one element a line): a scalar as itself, null as nothing, a list one element per line (a list
 * of scalars inside it tab-separated); undefined for an object, which the caller prints as YAML.
 */
export function queryLines(selection: unknown): string | undefined {
  const scalar = scalarText(selection);
  if (scalar !== undefined) return scalar === '' ? '' : `${scalar}\n`;
  if (!Array.isArray(selection)) return undefined;
  return selection
    .map((item) => {
      const text = scalarText(item);
      if (text !== undefined) return `${text}\n`;
      if (Array.isArray(item) && item.every((v) => scalarText(v) !== undefined))
        return `${item.map(scalarText).join('\t')}\n`;
      return `${JSON.stringify(item)}\n`;
    })
    .join('');
}

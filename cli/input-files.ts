/**
 * Reading what the user hands `gco`: manifests (YAML or JSON, several documents per file, `-` for
 * stdin), single JSON/YAML objects, and `@file` values. Unreadable or malformed input is a usage error
 * (exit 2) naming the file and line.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { UsageError } from './errors.js';
import type { CliIo } from './io.js';

export async function readStream(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer | string>) {
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A file's text (`-` = stdin). */
export async function readText(path: string, io: CliIo): Promise<string> {
  if (path === '-') return readStream(io.stdin);
  try {
    return await readFile(resolve(io.cwd, path), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new UsageError(`Cannot read ${path}: ${code === 'ENOENT' ? 'no such file' : code}`);
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Every object in a YAML/JSON text: `---`-separated documents, a top-level array, or a `kind: List`
 * with `items`, flattened in order; empty documents are skipped.
 */
export async function parseDocuments(text: string, source: string): Promise<Record<string, unknown>[]> {
  const { parseAllDocuments } = await import('yaml');
  const objects: Record<string, unknown>[] = [];
  for (const doc of parseAllDocuments(text, { prettyErrors: true })) {
    const error = doc.errors[0];
    if (error !== undefined) throw yamlError(error, source);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    const items: unknown[] = Array.isArray(value)
      ? value
      : isRecord(value) && value.kind === 'List' && Array.isArray(value.items)
        ? value.items
        : [value];
    for (const item of items) {
      if (!isRecord(item))
        throw new UsageError(`${source}: every document must be an object, found ${JSON.stringify(item)}`);
      objects.push(item);
    }
  }
  return objects;
}

/**
 * A YAML syntax error as compilers report one: `file:line:column: message`. The yaml library's message
 * ends with its own ` at line L, column C:` and an excerpt with a caret; the position moves to the front
 * and the excerpt becomes the details (`-v`), so the line never ends in a dangling `column 1:`.
 */
function yamlError(
  error: { message: string; linePos?: [{ line: number; col: number }, ...unknown[]] },
  source: string,
) {
  const [first = '', ...excerpt] = error.message.split('\n');
  const message = first.replace(/ at line \d+, column \d+:?\s*$/, '').replace(/:\s*$/, '');
  const at = error.linePos?.[0];
  const position = at === undefined ? '' : `:${at.line}:${at.col}`;
  const details = excerpt.join('\n').replace(/^\n+|\n+$/g, '');
  return new UsageError(`${source}${position}: ${message}`, undefined, details === '' ? undefined : details);
}

/** Every manifest in the files, in order. */
export async function readManifests(paths: readonly string[], io: CliIo): Promise<Record<string, unknown>[]> {
  const manifests: Record<string, unknown>[] = [];
  for (const path of paths)
    manifests.push(...(await parseDocuments(await readText(path, io), path === '-' ? 'stdin' : path)));
  if (manifests.length === 0) throw new UsageError(`No manifests in ${paths.join(', ')}`);
  return manifests;
}

/** Exactly one object from a file. */
export async function readSingleObject(
  path: string,
  io: CliIo,
  what: string,
): Promise<Record<string, unknown>> {
  const objects = await parseDocuments(await readText(path, io), path === '-' ? 'stdin' : path);
  if (objects.length !== 1 || objects[0] === undefined) {
    throw new UsageError(`${path} must hold exactly one ${what} (found ${objects.length})`);
  }
  return objects[0];
}

/** An option value that is either literal text or `@file` (`@-` = stdin). */
export async function literalOrFile(value: string, io: CliIo): Promise<string> {
  return value.startsWith('@') ? readText(value.slice(1), io) : value;
}

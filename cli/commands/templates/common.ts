/**
 * What the `gco templates` verbs share: template paths, and `--param key=value` values read as YAML
 * scalars, so `workers=3` is the number 3 and `debug=true` a boolean (quote to keep a string: `tag='"3"'`).
 */
import { UsageError } from '../../errors.js';
import { pathOf } from '../../http.js';

export const templatePath = (name: string) => pathOf('api', 'v1', 'templates', name);

/** `--param` strings as typed values (YAML scalars). */
export async function parameterValues(
  raw: Record<string, string> | undefined,
): Promise<Record<string, unknown> | undefined> {
  if (raw === undefined) return undefined;
  const { parse } = await import('yaml');
  const values: Record<string, unknown> = {};
  for (const [key, text] of Object.entries(raw)) {
    try {
      values[key] = parse(text) as unknown;
    } catch {
      throw new UsageError(`--param ${key}: "${text}" is not a YAML value (quote it to pass a string)`);
    }
  }
  return values;
}

/**
 * How a service reads its environment contracts with the one EnvReader (contracts/env/reader.ts). A contract
 * reads from raw variables (checked on their own, as tests and single readers do) or from a reader shared
 * by every contract of a service, which the service's wiring finishes once, so one startup error names
 * every problem of the pod. Writers (`xEnvironment()`) turn a contract's values back into variables.
 */
import { EnvReader } from '../../contracts/env/reader.js';

export type EnvSource = NodeJS.ProcessEnv | EnvReader;

/** Runs `read` on the shared reader as it is, or on a fresh reader over the variables, finished here. */
export function readContract<T>(source: EnvSource, read: (reader: EnvReader) => T): T {
  if (source instanceof EnvReader) return read(source);
  const reader = new EnvReader(source);
  const value = read(reader);
  reader.finish();
  return value;
}

export type VariableValue = string | number | boolean | readonly string[] | undefined;

/** Variables from typed values: numbers and booleans as text, lists comma-separated, unset values left out. */
export function variables(values: Record<string, VariableValue>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(',') : String(value);
  }
  return out;
}

/** Variables of a flat contract: `names` maps each field to its variable, `values` holds the fields to set. */
export function variablesOf<K extends string>(
  names: Readonly<Record<K, string>>,
  values: Partial<Record<K, VariableValue>>,
): Record<string, string> {
  return variables(
    Object.fromEntries((Object.keys(names) as K[]).map((field) => [names[field], values[field]])),
  );
}

/**
 * The global options every command takes, resolved against the environment, and the value parsers the
 * commands use for their own options (a bad value is a usage error, exit 2).
 */
import { InvalidArgumentError, Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { isKnownRegion } from '../contracts/partition.js';
import { UsageError } from './errors.js';

export const DEFAULT_PROJECT = 'gco';
export const DEFAULT_GLOBAL_REGION = 'us-east-2';
export const DEFAULT_TIMEOUT_SECONDS = 60;

/**
 * The global options as commander parses them (before the environment is consulted). The output format
 * is not among them: output-format.ts alone decides it (`-o`, then GCO_OUTPUT, then table).
 */
export interface RawGlobalOptions {
  local?: boolean;
  endpointsFile?: string;
  project?: string;
  globalRegion?: string;
  analyticsRegion?: string;
  region?: string;
  apiUrl?: string;
  analyticsUrl?: string;
  profile?: string;
  quiet?: boolean;
  verbose?: boolean;
  timeout?: number;
}

export interface GlobalOptions {
  /** Send requests to the local platform (`npm start`) found through its endpoints file. */
  local: boolean;
  /** Explicit endpoints file (implies `local`). */
  endpointsFile?: string;
  project: string;
  globalRegion: string;
  /** Region of the analytics stack; the global region when not given. */
  analyticsRegion?: string;
  /** Pin control-plane calls to this region's regional API. */
  region?: string;
  apiUrl?: string;
  analyticsUrl?: string;
  profile?: string;
  quiet: boolean;
  verbose: boolean;
  timeoutMs: number;
}

const truthy = (value: string | undefined) => value !== undefined && /^(1|true|yes|on)$/i.test(value);

/** Command line first, then `GCO_*` / `AWS_PROFILE` variables, then defaults. */
export function resolveGlobalOptions(
  raw: RawGlobalOptions,
  env: Readonly<Record<string, string | undefined>>,
): GlobalOptions {
  const endpointsFile = raw.endpointsFile ?? env.GCO_ENDPOINTS_FILE;
  const options: GlobalOptions = {
    local: raw.local === true || truthy(env.GCO_LOCAL) || raw.endpointsFile !== undefined,
    project: raw.project ?? env.GCO_PROJECT ?? DEFAULT_PROJECT,
    globalRegion: raw.globalRegion ?? env.GCO_GLOBAL_REGION ?? DEFAULT_GLOBAL_REGION,
    quiet: raw.quiet === true,
    verbose: raw.verbose === true,
    timeoutMs: (raw.timeout ?? DEFAULT_TIMEOUT_SECONDS) * 1000,
  };
  const optional = {
    endpointsFile,
    analyticsRegion: raw.analyticsRegion ?? env.GCO_ANALYTICS_REGION,
    region: raw.region ?? env.GCO_REGION,
    apiUrl: raw.apiUrl ?? env.GCO_API_URL,
    analyticsUrl: raw.analyticsUrl ?? env.GCO_ANALYTICS_URL,
    profile: raw.profile,
  };
  for (const [key, value] of Object.entries(optional)) {
    if (value !== undefined && value !== '') Object.assign(options, { [key]: value });
  }
  for (const [name, region] of [
    ['--global-region', options.globalRegion],
    ['--region', options.region],
    ['--analytics-region', options.analyticsRegion],
  ] as const) {
    if (region !== undefined && !isKnownRegion(region)) {
      throw new UsageError(`${name}: "${region}" is not an AWS region`);
    }
  }
  return options;
}

/** Parser for an integer option within bounds (commander `argParser`). */
export function integerIn(min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`expected an integer from ${min} to ${max}`);
    }
    return n;
  };
}

/** Parser for a number greater than zero. */
export function positiveNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0) {
    throw new InvalidArgumentError('expected a number greater than 0');
  }
  return n;
}

/** Parser for a region name. */
export function regionName(value: string): string {
  if (!isKnownRegion(value)) throw new InvalidArgumentError(`"${value}" is not an AWS region`);
  return value;
}

/** Collects repeated `key=value` options into an object (the last value of a key wins). */
export function keyValue(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const at = value.indexOf('=');
  if (at <= 0) throw new InvalidArgumentError(`expected key=value, got "${value}"`);
  return { ...previous, [value.slice(0, at)]: value.slice(at + 1) };
}

/** Collects a repeated option into a list. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** Seconds per unit of a duration. */
const DURATION_UNITS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86400 };
const DURATION = /^(?:\d+(?:\.\d+)?[smhd])+$/;
const DURATION_PART = /(\d+(?:\.\d+)?)([smhd])/g;

/**
 * Parser for every duration option (`--since`, `--wait-timeout`, …): `30s`, `5m`, `1h`, `2d`, compounds
 * such as `1h30m` (Go's time.ParseDuration, which kubectl's `--since` uses:
 * https://pkg.go.dev/time#ParseDuration, plus `d` for days), or a bare number of seconds. Returns whole
 * seconds (a fraction rounds up), within bounds.
 */
export function durationIn(minSeconds: number, maxSeconds: number) {
  return (value: string): number => {
    const trimmed = value.trim();
    let seconds: number;
    if (/^\d+$/.test(trimmed)) seconds = Number(trimmed);
    else if (DURATION.test(trimmed)) {
      seconds = 0;
      for (const [, count, unit] of trimmed.matchAll(DURATION_PART)) {
        seconds += Number(count) * (DURATION_UNITS[unit ?? 's'] ?? 1);
      }
      seconds = Math.ceil(seconds);
    } else {
      throw new InvalidArgumentError(
        `expected a duration such as 30s, 5m, 1h or 2d (or seconds), got "${value}"`,
      );
    }
    if (!Number.isSafeInteger(seconds) || seconds < minSeconds || seconds > maxSeconds) {
      throw new InvalidArgumentError(
        `expected a duration from ${formatDuration(minSeconds)} to ${formatDuration(maxSeconds)}`,
      );
    }
    return seconds;
  };
}

/** Seconds as the largest whole units, e.g. 5400 → `1h30m`. */
function formatDuration(seconds: number): string {
  if (seconds === 0) return '0s';
  let left = seconds;
  let out = '';
  for (const [unit, size] of Object.entries(DURATION_UNITS).sort(([, a], [, b]) => b - a)) {
    if (left >= size) {
      out += `${Math.floor(left / size)}${unit}`;
      left %= size;
    }
  }
  return out;
}

/** `--wait-timeout`: how long `--wait` waits (a duration; exit 1 when it runs out). */
export const waitTimeoutOption = (defaultSeconds: number, maxSeconds: number) =>
  new Option('--wait-timeout <duration>', 'with --wait: give up after this long (exit 1), e.g. 90s, 30m, 2h')
    .argParser(durationIn(1, maxSeconds))
    .default(defaultSeconds, formatDuration(defaultSeconds));

/**
 * Options that mean something only together with another option of the same command: given without it,
 * they are a usage error instead of being silently ignored. Keyed by commander's attribute names.
 */
const NEEDS: Readonly<Record<string, string>> = {
  waitTimeout: 'wait',
  maxTokens: 'prompt',
  stream: 'prompt',
};

const flagOf = (cmd: CommandUnknownOpts, attribute: string): string =>
  cmd.options.find((o) => o.attributeName() === attribute)?.long ?? attribute;

/**
 * A preAction hook (main.ts installs it on the program, so it runs for every command): refuses an
 * option given on the command line without the option it needs, e.g. `--wait-timeout` without `--wait`.
 */
export function rejectInapplicableOptions(_program: CommandUnknownOpts, cmd: CommandUnknownOpts): void {
  const attributes = new Set(cmd.options.map((o) => o.attributeName()));
  for (const [dependent, needed] of Object.entries(NEEDS)) {
    if (!attributes.has(dependent) || !attributes.has(needed)) continue;
    const source = cmd.getOptionValueSource(dependent);
    if (source !== 'cli' && source !== 'env') continue;
    const value: unknown = cmd.getOptionValue(needed);
    if (value === undefined || value === false) {
      throw new UsageError(
        `${flagOf(cmd, dependent)} applies only with ${flagOf(cmd, needed)}`,
        `add ${flagOf(cmd, needed)}, or leave ${flagOf(cmd, dependent)} out`,
      );
    }
  }
}

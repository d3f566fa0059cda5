/**
 * The global options every command takes, resolved against the environment, and the value parsers the
 * commands use for their own options (a bad value is a usage error, exit 2).
 */
import { InvalidArgumentError } from '@commander-js/extra-typings';
import { isKnownRegion } from '../contracts/partition.js';
import { UsageError } from './errors.js';

export const OUTPUT_FORMATS = ['table', 'json', 'yaml'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export const DEFAULT_PROJECT = 'gco';
export const DEFAULT_GLOBAL_REGION = 'us-east-2';
export const DEFAULT_TIMEOUT_SECONDS = 60;

/** The global options as commander parses them (before the environment is consulted). */
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
  output?: OutputFormat;
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
  output: OutputFormat;
  quiet: boolean;
  verbose: boolean;
  timeoutMs: number;
}

const truthy = (value: string | undefined) => value !== undefined && /^(1|true|yes|on)$/i.test(value);

/** Command line first, then `GCO_*` / `AWS_PROFILE` variables, then defaults. */
export function resolveGlobalOptions(
  raw: RawGlobalOptions,
  env: Readonly<Record<string, string | undefined>>,
  stdoutIsTty: boolean,
): GlobalOptions {
  const endpointsFile = raw.endpointsFile ?? env.GCO_ENDPOINTS_FILE;
  const options: GlobalOptions = {
    local: raw.local === true || truthy(env.GCO_LOCAL) || raw.endpointsFile !== undefined,
    project: raw.project ?? env.GCO_PROJECT ?? DEFAULT_PROJECT,
    globalRegion: raw.globalRegion ?? env.GCO_GLOBAL_REGION ?? DEFAULT_GLOBAL_REGION,
    output: raw.output ?? parseOutputEnv(env.GCO_OUTPUT) ?? (stdoutIsTty ? 'table' : 'json'),
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

function parseOutputEnv(value: string | undefined): OutputFormat | undefined {
  if (value === undefined || value === '') return undefined;
  const format = OUTPUT_FORMATS.find((f) => f === value);
  if (format === undefined) {
    throw new UsageError(`GCO_OUTPUT must be one of ${OUTPUT_FORMATS.join(', ')}`);
  }
  return format;
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

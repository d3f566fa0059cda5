/**
 * Typed reading of configuration from environment variables, for the edge Lambdas and the cluster
 * services alike. A reader collects every problem, naming the variable, and `finish()` throws them
 * together, so one failed deploy shows everything to fix. Values are never secrets (keys live in Secrets
 * Manager), so messages may quote what they found.
 *
 * Each environment contract is one module that both writes the variables (for the CDK stacks and the
 * local platform) and reads them, so a renamed variable fails at compile time or in its round-trip test.
 * Names say the side: `XxxEnvironment` is what a writer passes (values, may be CDK tokens), `XxxConfig`
 * what a reader returns.
 */
import { PlatformError } from '../runtime/errors.js';

export class EnvironmentError extends PlatformError {
  override readonly name = 'EnvironmentError';

  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n- ${problems.join('\n- ')}`);
  }
}

/** Numeric bounds of a variable; both ends inclusive. */
export interface Bounds {
  readonly min?: number;
  readonly max?: number;
}

// RFC 1123 host name (lower or upper case), or an IPv4 literal for local runs.
const HOSTNAME_RE =
  /^(?=.{1,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const DECIMAL_INTEGER_RE = /^-?[0-9]+$/;
const DECIMAL_NUMBER_RE = /^-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?$/;

export function isHostname(value: string): boolean {
  return HOSTNAME_RE.test(value);
}

/**
 * The writer's half of a contract: variables with their values as strings, the ones left undefined
 * omitted (the reader then uses its default). Values may be CDK tokens.
 */
export function envVariables(
  values: Readonly<Record<string, string | number | boolean | undefined>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(values)) if (value !== undefined) out[name] = String(value);
  return out;
}

const range = (b: Bounds): string => `${b.min ?? '-∞'}..${b.max ?? '∞'}`;

/** Collects problems while reading variables; `finish()` throws them all at once. */
export class EnvReader {
  private readonly found: string[] = [];

  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {}

  /** Every problem recorded so far. */
  get problems(): readonly string[] {
    return this.found;
  }

  /** Records a problem that only the caller can judge (cross-variable rules, formats). */
  problem(message: string): void {
    this.found.push(message);
  }

  /** Trimmed value; empty counts as unset. */
  optional(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  }

  /** The value, or a problem `NAME: required (what)` when it is unset. */
  required(name: string, what: string): string | undefined {
    const value = this.optional(name);
    if (value === undefined) this.problem(`${name}: required (${what})`);
    return value;
  }

  string(name: string, fallback: string): string {
    return this.optional(name) ?? fallback;
  }

  /** A decimal integer within the bounds; the fallback when unset or invalid. */
  integer(name: string, fallback: number, bounds: Bounds = {}): number {
    return this.numeric(name, fallback, bounds, true);
  }

  /** A decimal number within the bounds; the fallback when unset or invalid. */
  number(name: string, fallback: number, bounds: Bounds = {}): number {
    return this.numeric(name, fallback, bounds, false);
  }

  /** true/1/yes or false/0/no (any case). */
  boolean(name: string, fallback: boolean): boolean {
    const raw = this.optional(name);
    if (raw === undefined) return fallback;
    if (/^(true|1|yes)$/i.test(raw)) return true;
    if (/^(false|0|no)$/i.test(raw)) return false;
    this.problem(`${name}: expected true or false, got ${JSON.stringify(raw)}`);
    return fallback;
  }

  /** Comma-separated, trimmed, empty items dropped; the fallback when unset. */
  list(name: string, fallback: readonly string[]): string[] {
    const raw = this.optional(name);
    if (raw === undefined) return [...fallback];
    return raw
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0);
  }

  /** A required DNS host name (or IPv4 literal). */
  hostname(name: string, what: string): string | undefined {
    const value = this.required(name, what);
    if (value !== undefined && !isHostname(value)) {
      this.problem(`${name}: expected a DNS host name, got ${JSON.stringify(value)}`);
      return undefined;
    }
    return value;
  }

  /** Throws an EnvironmentError listing every problem seen so far. */
  finish(): void {
    if (this.found.length > 0) throw new EnvironmentError(this.found);
  }

  private numeric(name: string, fallback: number, bounds: Bounds, integer: boolean): number {
    const raw = this.optional(name);
    if (raw === undefined) return fallback;
    const kind = integer ? 'an integer' : 'a number';
    const value = (integer ? DECIMAL_INTEGER_RE : DECIMAL_NUMBER_RE).test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isFinite(value) || (integer && !Number.isSafeInteger(value))) {
      this.problem(`${name}: expected ${kind} in ${range(bounds)}, got ${JSON.stringify(raw)}`);
      return fallback;
    }
    if (
      (bounds.min !== undefined && value < bounds.min) ||
      (bounds.max !== undefined && value > bounds.max)
    ) {
      this.problem(`${name}: expected a value in ${range(bounds)}, got ${raw}`);
      return fallback;
    }
    return value;
  }
}

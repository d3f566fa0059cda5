/** Typed reading of service configuration from environment variables, with errors that name the variable. */

export class EnvConfigError extends Error {
  constructor(problems: readonly string[]) {
    super(`Invalid service configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'EnvConfigError';
  }
}

/** Collects every problem, then throws them together. */
export class EnvReader {
  private readonly problems: string[] = [];
  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {}

  string(name: string, fallback: string): string {
    const value = this.env[name];
    return value === undefined || value === '' ? fallback : value;
  }

  optionalString(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value === '' ? undefined : value;
  }

  number(
    name: string,
    fallback: number,
    check: { min?: number; max?: number; integer?: boolean } = {},
  ): number {
    const raw = this.env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    const bounds = `${check.min ?? '-∞'}..${check.max ?? '∞'}`;
    if (!Number.isFinite(value) || (check.integer && !Number.isInteger(value))) {
      this.problems.push(
        `${name}: expected ${check.integer ? 'an integer' : 'a number'} in ${bounds}, got ${JSON.stringify(raw)}`,
      );
      return fallback;
    }
    if ((check.min !== undefined && value < check.min) || (check.max !== undefined && value > check.max)) {
      this.problems.push(`${name}: expected a value in ${bounds}, got ${raw}`);
      return fallback;
    }
    return value;
  }

  boolean(name: string, fallback: boolean): boolean {
    const raw = this.env[name];
    if (raw === undefined || raw === '') return fallback;
    if (/^(true|1|yes)$/i.test(raw)) return true;
    if (/^(false|0|no)$/i.test(raw)) return false;
    this.problems.push(`${name}: expected true or false, got ${JSON.stringify(raw)}`);
    return fallback;
  }

  list(name: string, fallback: readonly string[]): string[] {
    const raw = this.env[name];
    if (raw === undefined || raw.trim() === '') return [...fallback];
    return raw
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0);
  }

  /** Throws EnvConfigError listing every problem seen so far. */
  done(): void {
    if (this.problems.length > 0) throw new EnvConfigError(this.problems);
  }
}

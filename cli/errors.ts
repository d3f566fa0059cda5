/**
 * The errors `gco` reports and the exit code each one means (docs/cli.md, "Exit codes"):
 * 0 success, 1 the platform refused or failed the request, 2 bad usage, 3 discovery or credentials.
 */
import { PlatformError } from '../contracts/runtime/errors.js';

export const EXIT = { ok: 0, api: 1, usage: 2, environment: 3 } as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * An error with a message for the user (one line: the cause), an optional hint (what to do next), its
 * exit code, and details (an API's full answer, a YAML excerpt) that only `-v` prints.
 */
export abstract class CliError extends PlatformError {
  abstract readonly exitCode: ExitCode;

  constructor(
    message: string,
    readonly hint?: string,
    readonly details?: string,
  ) {
    super(message);
  }
}

/** The platform answered with an error status (or an operation it ran reported failures). */
export class ApiError extends CliError {
  override readonly name = 'ApiError';
  readonly exitCode = EXIT.api;

  constructor(
    message: string,
    hint?: string,
    /** HTTP status of the answer; undefined when no answer arrived (network failure). */
    readonly status?: number,
    details?: string,
  ) {
    super(message, hint, details);
  }
}

/**
 * The command line (or an input file it names) is wrong: found by gco, or by the API when it refuses a
 * query or path parameter (api-errors.ts).
 */
export class UsageError extends CliError {
  override readonly name = 'UsageError';
  readonly exitCode = EXIT.usage;
}

/** The platform's endpoints could not be found (CloudFormation, `.local/endpoints.json`). */
export class DiscoveryError extends CliError {
  override readonly name = 'DiscoveryError';
  readonly exitCode = EXIT.environment;
}

/** No usable AWS credentials. */
export class CredentialsError extends CliError {
  override readonly name = 'CredentialsError';
  readonly exitCode = EXIT.environment;
}

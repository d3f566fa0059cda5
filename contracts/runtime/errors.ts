/**
 * The one error base of the platform: Lambdas, services, the CLI and the CDK app extend it. An error has
 * a name (set by each subclass as a literal: bundles are minified without keepNames, so a class name
 * would not survive), a message for whoever reads it, an optional machine-readable `code`, an optional
 * `reason` that goes to the log only (it may name internals), and the standard `cause`.
 */

export interface PlatformErrorOptions {
  /** Machine-readable kind of the failure (e.g. `timeout`, `ETIMEDOUT`). */
  readonly code?: string;
  /** Short cause for the log; never shown to a caller. */
  readonly reason?: string;
  readonly cause?: unknown;
}

export abstract class PlatformError extends Error {
  abstract override readonly name: string;
  declare readonly code?: string;
  declare readonly reason?: string;

  constructor(message: string, options: PlatformErrorOptions = {}) {
    super(message, 'cause' in options ? { cause: options.cause } : undefined);
    if (options.code !== undefined) this.code = options.code;
    if (options.reason !== undefined) this.reason = options.reason;
  }
}

/** The message of any thrown value: an Error's message, anything else as a string. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `Name: message` of an Error (the class tells a timeout from a refusal), anything else as a string. */
export function namedErrorMessage(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

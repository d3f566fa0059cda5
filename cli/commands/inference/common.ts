/**
 * What the `gco inference` lifecycle verbs share: endpoint paths, the options every mutating verb takes
 * (`--wait`, `--wait-timeout`, `--expected-generation`) and the one way they send a change and wait.
 */
import { InvalidArgumentError, Option } from '@commander-js/extra-typings';
import { ENDPOINT_NAME_PATTERN } from '../../../contracts/inference-endpoints.js';
import { bareName } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import { pathOf, type ApiRequest } from '../../http.js';
import { integerIn, waitTimeoutOption as durationWaitTimeout } from '../../options.js';
import { endpointView } from '../../views/inference.js';
import { waitForEndpoint } from './wait.js';

/** Default `--wait-timeout`: pulling a model image and loading weights takes minutes, not seconds. */
const DEFAULT_WAIT_SECONDS = 1800;

export const endpointsPath = '/api/v1/inference/endpoints';

export const endpointPath = (name: string, ...rest: string[]) =>
  pathOf('api', 'v1', 'inference', 'endpoints', name, ...rest);

/** The options of every verb that changes an endpoint. */
export interface MutationOptions {
  wait?: boolean;
  waitTimeout: number;
  expectedGeneration?: number;
}

export const waitOption = (
  description = 'wait until every region of the endpoint reports the desired state',
) => new Option('--wait', description);

export const waitTimeoutOption = () => durationWaitTimeout(DEFAULT_WAIT_SECONDS, 24 * 3600);

export const expectedGenerationOption = () =>
  new Option(
    '--expected-generation <n>',
    'refuse the change (409) unless the endpoint is still at this generation',
  ).argParser(integerIn(1, Number.MAX_SAFE_INTEGER));

/**
 * Sends a change, prints the answer (the endpoint with its new generation) and, with `--wait`, polls until
 * every listed region reports it (wait.ts); a failed region or the timeout exits 1.
 */
export async function sendChange(
  ctx: CommandContext,
  name: string,
  request: ApiRequest,
  options: MutationOptions,
): Promise<void> {
  const client = await ctx.control();
  const body =
    options.expectedGeneration !== undefined && request.method === 'POST'
      ? {
          ...(request.body as Record<string, unknown> | undefined),
          expected_generation: options.expectedGeneration,
        }
      : request.body;
  await ctx.call(client, { ...request, ...(body !== undefined ? { body } : {}) }, endpointView);
  if (options.wait !== true) return;
  await waitForEndpoint(client, ctx.out, {
    name,
    path: endpointPath(name),
    timeoutMs: options.waitTimeout * 1000,
    gone: request.method === 'DELETE',
  });
}

const NAME = new RegExp(ENDPOINT_NAME_PATTERN);

/**
 * An endpoint as given on the command line: its name, or `endpoint/NAME` as `-o name` prints it (another
 * kind's `kind/name` is a usage error, command-kit.ts bareName).
 */
export const endpointRef = (value: string): string => bareName(value, ['endpoint', 'endpoints']);

/**
 * Parser for an endpoint name (bare or `endpoint/NAME`): a DNS label short enough for its canary's object
 * names (the contract's).
 */
export function endpointName(value: string): string {
  const name = endpointRef(value);
  if (!NAME.test(name)) {
    throw new InvalidArgumentError(
      'expected a lower-case DNS label of 1–40 characters starting with a letter (e.g. llama-8b)',
    );
  }
  return name;
}

/** Parser for a path below the endpoint (`/v1/completions`). */
export function pathBelowEndpoint(value: string): string {
  if (!value.startsWith('/') || /[\s?#]/.test(value)) {
    throw new InvalidArgumentError('expected a path starting with / (no spaces, query or fragment)');
  }
  return value;
}

/**
 * `gco inference deploy`: creates a managed inference endpoint (POST /api/v1/inference/endpoints) in the
 * regions named with `--target-region` (repeatable; without it, the region `--region` pins). Always sent
 * with an Idempotency-Key — generated per invocation unless given, and printed — so gco's own retries and
 * a re-run with the same key never create it twice.
 */
import { randomUUID } from 'node:crypto';
import { Command, InvalidArgumentError, Option } from '@commander-js/extra-typings';
import { examples, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import { UsageError } from '../../errors.js';
import { collect, integerIn, keyValue, regionName } from '../../options.js';
import {
  endpointName,
  endpointsPath,
  pathBelowEndpoint,
  sendChange,
  waitOption,
  waitTimeoutOption,
  type MutationOptions,
} from './common.js';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * A positive Kubernetes quantity in the forms resource requests use: a decimal number with an optional
 * decimal (m, k, M, G, T, P, E) or binary (Ki … Ei) suffix.
 * https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/quantity/
 */
function quantity(value: string): string {
  if (
    !/^(\d+(\.\d+)?|\.\d+)(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/.test(value) ||
    Number.parseFloat(value) <= 0
  ) {
    throw new InvalidArgumentError('expected a Kubernetes quantity greater than 0, e.g. 500m, 2, 4Gi');
  }
  return value;
}

interface DeployOptions extends MutationOptions {
  name: string;
  image: string;
  targetRegion?: string[];
  replicas?: number;
  gpu?: number;
  cpu?: string;
  memory?: string;
  port?: number;
  healthPath?: string;
  servingPath?: string[];
  env?: Record<string, string>;
  idempotencyKey?: string;
}

export function deployCommand(kit: CommandKit) {
  return examples(
    new Command('deploy')
      .description('create an inference endpoint that runs a model server image in the given regions')
      .argument('<name>', 'endpoint name (a DNS label, 1–40 characters)', endpointName)
      .requiredOption('--image <image>', 'model server image (a registry the validation policy trusts)')
      .addOption(
        new Option(
          '--target-region <region>',
          'region that runs the endpoint (repeatable; default: the region --region pins)',
        ).argParser((value: string, previous?: string[]) => collect(regionName(value), previous)),
      )
      .option('--replicas <n>', 'model server pods per region (server default 1)', integerIn(1, 1000))
      .option('--gpu <n>', 'nvidia.com/gpu devices per pod', integerIn(0, 64))
      .option('--cpu <quantity>', 'CPU per pod, e.g. 2 or 500m', quantity)
      .option('--memory <quantity>', 'memory per pod, e.g. 16Gi', quantity)
      .option('--port <port>', 'the model container’s HTTP port (server default)', integerIn(1, 65535))
      .option('--health-path <path>', 'readiness probe path (server default)', pathBelowEndpoint)
      .option(
        '--serving-path <path>',
        'path the edge forwards (repeatable; server default)',
        (value: string, previous?: string[]) => collect(pathBelowEndpoint(value), previous),
      )
      .option('--env <key=value>', 'environment variable of the model container (repeatable)', keyValue)
      .option('--idempotency-key <key>', 'replay-safe key (default: a new one per invocation, printed)')
      .addOption(waitOption())
      .addOption(waitTimeoutOption())
      .action(async (name, opts, cmd) => runDeploy({ ...opts, name }, await kit.context(cmd))),
    'gco inference deploy llama --image 123456789012.dkr.ecr.us-east-1.amazonaws.com/vllm:0.6 --target-region us-east-1 --gpu 1 --wait',
    'gco --region us-east-1 inference deploy small --image ghcr.io/acme/tgi:2 --replicas 2 --env MODEL_ID=acme/small',
  );
}

async function runDeploy(options: DeployOptions, ctx: CommandContext): Promise<void> {
  const regions = options.targetRegion ?? (ctx.options.region !== undefined ? [ctx.options.region] : []);
  if (regions.length === 0) {
    throw new UsageError(
      'name the regions that run the endpoint: --target-region R (repeatable) or --region R',
    );
  }
  const key = options.idempotencyKey ?? randomUUID();
  if (!IDEMPOTENCY_KEY.test(key))
    throw new UsageError('--idempotency-key: 1 to 255 printable ASCII characters, no spaces');
  if (options.idempotencyKey === undefined) {
    ctx.out.info(`idempotency key: ${key} (to retry this deployment safely: --idempotency-key ${key})`);
  }
  const resources = { cpu: options.cpu, memory: options.memory, gpu: options.gpu };
  const body = {
    name: options.name,
    image: options.image,
    regions: [...new Set(regions)],
    replicas: options.replicas,
    port: options.port,
    health_path: options.healthPath,
    serving_paths: options.servingPath,
    resources: Object.values(resources).some((v) => v !== undefined) ? resources : undefined,
    env: options.env,
  };
  await sendChange(
    ctx,
    options.name,
    { method: 'POST', path: endpointsPath, body, headers: { 'idempotency-key': key }, idempotent: true },
    options,
  );
}

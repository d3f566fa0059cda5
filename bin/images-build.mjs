// @ts-check
/**
 * `npm run images:build`: builds the four service images for linux/amd64 (what EKS Auto Mode's
 * general-purpose nodes run), optionally pushes them, and prints the cdk.json `images` value that makes
 * `cdk deploy` use them instead of building with Docker (docs/operations.md, "Images without Docker").
 *
 *   npm run images:build -- --registry 123456789012.dkr.ecr.{region}.amazonaws.com/gco --tag v1.4.0 \
 *     --region us-east-1 --region eu-west-1 --push
 *
 * The container CLI is CDK_DOCKER's (as for `cdk deploy`), default `docker`; Finch and Podman take the
 * same `build --platform … -f … --build-arg … -t …` and `push` arguments. Each service is built once,
 * tagged for every region given, and pushed to each.
 *
 * The registry and tag are checked by lib/config.ts's own rules (loadConfig), the image URIs come from
 * lib/images.ts: the script names exactly what the CDK app will deploy. Both are loaded through tsx's
 * import API (a handful of small modules, no bundling).
 *
 * Output: progress and the child CLI's output on stderr, the `images` snippet (JSON) on stdout.
 * Exit codes: 0 done, 1 the container CLI is missing or one of its commands failed, 2 bad arguments.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { tsImport } from 'tsx/esm/api';

const root = fileURLToPath(new URL('..', import.meta.url));

/** @type {typeof import('../lib/config.js')} */
const config = await tsImport('../lib/config.ts', import.meta.url);
/** @type {typeof import('../lib/images.js')} */
const images = await tsImport('../lib/images.ts', import.meta.url);
/** @type {typeof import('../contracts/routing.js')} */
const routing = await tsImport('../contracts/routing.ts', import.meta.url);
/** @type {typeof import('../contracts/partition.js')} */
const partition = await tsImport('../contracts/partition.ts', import.meta.url);

const USAGE = `Usage: npm run images:build -- --registry <prefix> --tag <tag> [options]

Builds the service images for ${images.IMAGE_PLATFORM} with the container CLI in CDK_DOCKER (default docker;
finch and podman work too) as <registry>/<service>:<tag>.

  --registry <prefix>  repository prefix, e.g. 123456789012.dkr.ecr.{region}.amazonaws.com/gco;
                       ${images.REGION_PLACEHOLDER} is replaced by each --region
  --tag <tag>          image tag, e.g. a release or commit id
  --region <region>    a region to tag (and push) for; repeat for several; required when the
                       registry contains ${images.REGION_PLACEHOLDER}, refused when it does not
  --service <name>     build only this service; repeat for several (default: all of
                       ${routing.CLUSTER_SERVICES.join(', ')})
  --push               push every image after all builds succeeded
  -h, --help           this text

Exit codes: 0 done, 1 the container CLI failed or is missing, 2 bad arguments.`;

const say = (/** @type {string} */ line) => process.stderr.write(`${line}\n`);

const OPTIONS = /** @type {const} */ ({
  registry: { type: 'string' },
  tag: { type: 'string' },
  region: { type: 'string', multiple: true },
  service: { type: 'string', multiple: true },
  push: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
});

/**
 * @param {string} message
 * @returns {never}
 */
function usageError(message) {
  say(`images:build: ${message}`);
  say('Run with --help for the options.');
  process.exit(2);
}

/** The options, or exit 2 on an unknown one or a missing value. */
function parseOptions() {
  try {
    return parseArgs({ options: OPTIONS, allowPositionals: false, strict: true }).values;
  } catch (error) {
    return usageError(error instanceof Error ? error.message : String(error));
  }
}

/** @returns {{ registry: string, tag: string, regions: string[], services: string[], push: boolean }} */
function readArguments() {
  const values = parseOptions();
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const { registry, tag } = values;
  const missing = [registry === undefined && '--registry', tag === undefined && '--tag'].filter(Boolean);
  if (registry === undefined || tag === undefined) return usageError(`${missing.join(' and ')} required`);

  // The deployment config's own rules for `images.registry` and `images.tag`.
  try {
    config.loadConfig({ images: { registry, tag } });
  } catch (error) {
    if (!(error instanceof config.ConfigError)) throw error;
    const flag = (/** @type {string} */ path) => path.replace(/^images\./, '--');
    return usageError(
      error.problems.map((p) => `${flag(p.path)}: expected ${p.expected}, got ${p.received}`).join('\n'),
    );
  }

  const regions = [...new Set(values.region ?? [])];
  const unknown = regions.filter((region) => !partition.isKnownRegion(region));
  if (unknown.length > 0) return usageError(`--region: not a known AWS region: ${unknown.join(', ')}`);
  if (images.isRegional(registry) && regions.length === 0) {
    return usageError(`--registry contains ${images.REGION_PLACEHOLDER}: give --region (once per region)`);
  }
  if (!images.isRegional(registry) && regions.length > 0) {
    return usageError(`--region given, but --registry has no ${images.REGION_PLACEHOLDER} to replace`);
  }

  /** @type {readonly string[]} */
  const known = routing.CLUSTER_SERVICES;
  const services = [...new Set(values.service ?? known)];
  const strangers = services.filter((service) => !known.includes(service));
  if (strangers.length > 0) {
    return usageError(`--service: unknown ${strangers.join(', ')} (services: ${known.join(', ')})`);
  }
  return { registry, tag, regions, services, push: values.push ?? false };
}

const cli = process.env.CDK_DOCKER || 'docker';

/**
 * Runs the container CLI with its output on stderr; exits 1 when it cannot start or fails.
 * @param {string[]} args
 */
function run(args) {
  say(`$ ${[cli, ...args].join(' ')}`);
  const result = spawnSync(cli, args, { cwd: root, stdio: ['ignore', process.stderr, process.stderr] });
  if (result.error) {
    const code = /** @type {NodeJS.ErrnoException} */ (result.error).code;
    say(
      code === 'ENOENT'
        ? `images:build: container CLI "${cli}" not found (install Docker, Finch or Podman, or set CDK_DOCKER)`
        : `images:build: could not run "${cli}": ${result.error.message}`,
    );
    process.exit(1);
  }
  if (result.status !== 0) {
    const how = result.signal ? `signal ${result.signal}` : `exit code ${result.status}`;
    say(`images:build: "${cli} ${args[0]}" failed (${how})`);
    process.exit(1);
  }
}

const { registry, tag, regions, services, push } = readArguments();
const registries = regions.length > 0 ? regions.map((r) => images.registryInRegion(registry, r)) : [registry];
const refs = (/** @type {string} */ service) => registries.map((r) => images.imageUri(r, service, tag));

for (const service of services) {
  const tags = refs(service).flatMap((ref) => ['-t', ref]);
  run([
    'build',
    '--platform',
    images.IMAGE_PLATFORM,
    '-f',
    images.CLUSTER_DOCKERFILE,
    '--build-arg',
    `SERVICE=${service}`,
    ...tags,
    '.',
  ]);
}
if (push) {
  for (const service of services) for (const ref of refs(service)) run(['push', ref]);
}

say(`images:build: built${push ? ' and pushed' : ''} ${services.flatMap(refs).join(', ')}`);
if (!push) say('images:build: not pushed (--push pushes them; the nodes pull from the registry)');
if (services.length < routing.CLUSTER_SERVICES.length) {
  say(`images:build: a deployment needs all ${routing.CLUSTER_SERVICES.length} services under the same tag`);
}
say('images:build: cdk.json "context" (or -c images=…) for `cdk deploy` without Docker:');
process.stdout.write(`${JSON.stringify({ images: { registry, tag } }, null, 2)}\n`);

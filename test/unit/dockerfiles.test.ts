/**
 * Each service image is built from what cluster/Dockerfile COPYs and nothing else. Without a Docker
 * engine, this test assembles exactly that build context in a temporary folder (plus node_modules, which
 * the Dockerfile installs with `npm ci`) and runs the Dockerfile's build command there with each
 * service's SERVICE build argument: an import of a file the Dockerfile forgets to copy fails here instead
 * of at `cdk deploy`. It also checks that .dockerignore lets every copied path through, and that the
 * images run the Node.js major version of the Lambdas.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { CLUSTER_DOCKERFILE } from '../../lib/constructs/cluster-services.js';
import { PLATFORM_NODE_MAJOR, PLATFORM_RUNTIME } from '../../lib/constructs/platform-function.js';
import { CLUSTER_SERVICES } from '../../contracts/routing.js';

const root = process.cwd();
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const dockerfile = readFileSync(join(root, CLUSTER_DOCKERFILE), 'utf8');

/** Sources of the build stage's `COPY a b dest` lines (not `COPY --from=…`). */
const copiedPaths = dockerfile
  .split('\n')
  .filter((line) => /^COPY\s/.test(line) && !line.includes('--from'))
  .flatMap((line) => line.trim().split(/\s+/).slice(1, -1));

/** .dockerignore is a whitelist: `*` then `!path` entries, then re-excluded folders. */
const dockerignore = readFileSync(join(root, '.dockerignore'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));

/** The build stage's bundling command, with the SERVICE build argument filled in. */
function buildCommand(service: string): string[] {
  const run = /^RUN npx tsx (cluster\/build\.ts .+)$/m.exec(dockerfile);
  expect(run).not.toBeNull();
  return (run?.[1] ?? '').split(/\s+/).map((arg) => (arg === '"$SERVICE"' ? service : arg));
}

test('.dockerignore admits every copied path', () => {
  expect(dockerignore[0]).toBe('*');
  for (const path of copiedPaths) {
    const admitted = dockerignore.some((rule) => {
      const allowed = rule.slice(1).replace(/\/$/, '');
      return rule.startsWith('!') && (path === allowed || path.startsWith(`${allowed}/`));
    });
    expect({ path, admitted }).toEqual({ path, admitted: true });
  }
});

test('both stages are Node.js images of the platform major version, the Lambda runtime too', () => {
  const bases = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
  expect(bases).toEqual([
    `public.ecr.aws/docker/library/node:${PLATFORM_NODE_MAJOR}-alpine`,
    `public.ecr.aws/docker/library/node:${PLATFORM_NODE_MAJOR}-alpine`,
  ]);
  expect(PLATFORM_RUNTIME.name).toBe(`nodejs${PLATFORM_NODE_MAJOR}.x`);
});

test('the image runs the bundle its SERVICE build argument names', () => {
  expect(dockerfile).toMatch(/^ENV .*\bSERVICE=\$\{SERVICE\}/m);
  expect(dockerfile).toMatch(/^CMD .*exec node --enable-source-maps \\"\/app\/\$\{SERVICE\}\.mjs\\"/m);
});

describe.each(CLUSTER_SERVICES)('%s image', (service) => {
  test('the build succeeds from the copied files alone', () => {
    const context = mkdtempSync(join(tmpdir(), `gco-image-${service}-`));
    dirs.push(context);
    for (const path of copiedPaths) {
      expect(existsSync(join(root, path))).toBe(true);
      cpSync(join(root, path), join(context, path), { recursive: true });
    }
    symlinkSync(join(root, 'node_modules'), join(context, 'node_modules'), 'dir');
    const args = buildCommand(service);
    const result = spawnSync(
      join(root, 'node_modules/.bin/tsx'),
      [...args.slice(0, -1), join(context, 'out')],
      {
        cwd: context,
        encoding: 'utf8',
      },
    );
    expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
    expect(existsSync(join(context, 'out', `${service}.mjs`))).toBe(true);
  });
});

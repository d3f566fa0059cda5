/**
 * Config `images` (docs/operations.md, "Images without Docker"): pre-built images leave no container
 * asset in the cloud assembly (so `cdk deploy` needs no Docker) and the manifests of every region name
 * `<registry with the region>/<service>:<tag>`; without `images`, each service is a Docker image asset
 * built from cluster/Dockerfile as before.
 *
 * Lambda bundling and the CDK's built-in CloudFormation validation are skipped, as in
 * regional-stack.test.ts: neither changes what is asserted here.
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import { Template } from 'aws-cdk-lib/assertions';
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';
import { AssetManifestArtifact } from 'aws-cdk-lib/cx-api';
import type { PlatformApp } from '../../lib/app-builder.js';
import { CLUSTER_SERVICES } from '../../contracts/routing.js';
import type { RegionalStack } from '../../lib/stacks/regional-stack.js';
import { buildForAssertions, regionalStackOf } from '../support/platform-app.js';
import { nagErrors } from '../support/stack-templates.js';

type Json = Record<string, unknown>;
interface Container {
  image: string;
  env?: { name: string; value: string }[];
}

const REGIONS = ['us-east-1', 'eu-west-1'];

const build = (context: Json): PlatformApp => buildForAssertions({ regions: REGIONS, ...context });

/** Flattens `Fn::Join` / `Fn::Sub` into text, every reference rendered as `<token>`. */
function joined(value: unknown): string {
  if (typeof value === 'string') return value;
  const sub = (value as { 'Fn::Sub'?: unknown })['Fn::Sub'];
  if (typeof sub === 'string') return sub.replace(/\$\{[^}]+\}/g, '<token>');
  const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  return join ? join[1].map(joined).join(join[0]) : '<token>';
}

/** The first container of each Deployment the stack applies, by Deployment name. */
function deploymentContainers(stack: RegionalStack): Map<string, Container> {
  const containers = new Map<string, Container>();
  const resources = Template.fromStack(stack).findResources('Custom::AWSCDK-EKS-KubernetesResource');
  for (const resource of Object.values(resources) as { Properties: { Manifest: unknown } }[]) {
    for (const object of JSON.parse(joined(resource.Properties.Manifest)) as Json[]) {
      if (object.kind !== 'Deployment') continue;
      const name = (object.metadata as { name: string }).name;
      const spec = object.spec as { template: { spec: { containers: Container[] } } };
      const [container] = spec.template.spec.containers;
      if (container) containers.set(name, container);
    }
  }
  return containers;
}

/** The Docker images of the stack's asset manifest(s). */
function dockerImagesOf(assembly: CloudAssembly, stack: RegionalStack): Json[] {
  return assembly
    .getStackArtifact(stack.artifactId)
    .dependencies.filter((d): d is AssetManifestArtifact => d instanceof AssetManifestArtifact)
    .flatMap((m) => Object.values(m.contents.dockerImages ?? {}) as unknown as Json[]);
}

const envOf = (container: Container | undefined, name: string): string | undefined =>
  container?.env?.find((e) => e.name === name)?.value;

describe('images: pre-built (registry with {region}, tag)', () => {
  const registry = '123456789012.dkr.ecr.{region}.amazonaws.com/gco';
  const tag = 'v1.4.0-3f9c2ab';
  let built: PlatformApp;
  let assembly: CloudAssembly;

  beforeAll(() => {
    built = build({ images: { registry, tag } });
    assembly = built.app.synth();
  });

  test.each(REGIONS)('%s: no container asset, so deploying needs no Docker', (region) => {
    expect(dockerImagesOf(assembly, regionalStackOf(built, region))).toEqual([]);
    expect(regionalStackOf(built, region).services.imageAssets.size).toBe(0);
  });

  test('no stack of the assembly has a container asset', () => {
    const images = assembly.artifacts
      .filter((a): a is AssetManifestArtifact => a instanceof AssetManifestArtifact)
      .flatMap((m) => Object.keys(m.contents.dockerImages ?? {}));
    expect(images).toEqual([]);
  });

  test.each(REGIONS)('%s: every Deployment runs <registry in the region>/<service>:<tag>', (region) => {
    const containers = deploymentContainers(regionalStackOf(built, region));
    expect(new Map([...containers].map(([name, c]) => [name, c.image]))).toEqual(
      new Map(
        CLUSTER_SERVICES.map((service) => [
          service,
          `123456789012.dkr.ecr.${region}.amazonaws.com/gco/${service}:${tag}`,
        ]),
      ),
    );
  });

  test.each(REGIONS)("%s: the policy trusts the region's registry as the project's", (region) => {
    const containers = deploymentContainers(regionalStackOf(built, region));
    expect(envOf(containers.get('manifest-processor'), 'PROJECT_REGISTRIES')).toBe(
      `123456789012.dkr.ecr.${region}.amazonaws.com/gco`,
    );
  });

  test.each(REGIONS)(
    "%s: the Auto Mode node role may pull from the account's ECR (AmazonEC2ContainerRegistryReadOnly)",
    (region) => {
      const roles = Template.fromStack(regionalStackOf(built, region)).findResources('AWS::IAM::Role', {
        Properties: {
          AssumeRolePolicyDocument: {
            Statement: [{ Action: 'sts:AssumeRole', Principal: { Service: 'ec2.amazonaws.com' } }],
          },
        },
      });
      const policies = Object.values(roles).map((role) =>
        JSON.stringify(
          (role as { Properties: { ManagedPolicyArns?: unknown } }).Properties.ManagedPolicyArns,
        ),
      );
      expect(policies).toHaveLength(1);
      expect(policies[0]).toContain(':iam::aws:policy/AmazonEC2ContainerRegistryReadOnly');
    },
  );

  test.each(REGIONS)('%s: cdk-nag has no unsuppressed error', (region) => {
    expect(nagErrors(regionalStackOf(built, region))).toEqual([]);
  });
});

describe('images: pre-built from one registry for every region (no {region})', () => {
  test('every region names the same images', () => {
    const built = build({ images: { registry: 'ghcr.io/acme/gco', tag: '2026.11.1' } });
    for (const region of REGIONS) {
      const containers = deploymentContainers(regionalStackOf(built, region));
      expect(containers.get('cost-monitor')?.image).toBe('ghcr.io/acme/gco/cost-monitor:2026.11.1');
      expect(envOf(containers.get('manifest-processor'), 'PROJECT_REGISTRIES')).toBe('ghcr.io/acme/gco');
    }
  });
});

describe('images: built at deploy time (the default)', () => {
  let built: PlatformApp;
  let assembly: CloudAssembly;

  beforeAll(() => {
    built = build({ regions: ['us-east-1'] });
    assembly = built.app.synth();
  });

  test('one amd64 Docker image asset per service from cluster/Dockerfile, context the repository root', () => {
    const images = dockerImagesOf(assembly, regionalStackOf(built, 'us-east-1')) as {
      source: { directory?: string; dockerFile?: string; dockerBuildArgs?: Json; platform?: string };
    }[];
    expect(images.map((i) => [i.source.dockerFile, i.source.dockerBuildArgs?.SERVICE]).sort()).toEqual(
      CLUSTER_SERVICES.map((s) => ['cluster/Dockerfile', s]).sort(),
    );
    for (const image of images) expect(image.source.platform).toBe('linux/amd64');
  });

  test("the Deployments run the assets' images and the policy trusts the asset repository", () => {
    const containers = deploymentContainers(regionalStackOf(built, 'us-east-1'));
    const assetRepository =
      /^<token>\.dkr\.ecr\.us-east-1\.<token>\/cdk-hnb659fds-container-assets-<token>-us-east-1/;
    for (const service of CLUSTER_SERVICES) {
      expect(containers.get(service)?.image).toMatch(new RegExp(`${assetRepository.source}:[0-9a-f]{64}$`));
    }
    expect(envOf(containers.get('manifest-processor'), 'PROJECT_REGISTRIES')).toMatch(
      new RegExp(`${assetRepository.source}$`),
    );
  });
});

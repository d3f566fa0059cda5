/**
 * The service images: how they are built (one Dockerfile, one SERVICE build argument, amd64) and where a
 * pre-built one is found (config `images`: `<registry>/<service>:<tag>`, `{region}` in the registry
 * replaced per deployment region). Shared by the CDK app (lib/constructs/cluster-services.ts) and
 * `npm run images:build` (bin/images-build.mjs), so the script pushes exactly the URIs the manifests name.
 */

/** The one Dockerfile of every service image, relative to the repository root (the build context). */
export const CLUSTER_DOCKERFILE = 'cluster/Dockerfile';

/** Auto Mode's general-purpose NodePool runs amd64 only. */
export const IMAGE_PLATFORM = 'linux/amd64';

/**
 * Replaced by the deployment region in `images.registry`.
 * @public bin/images-build.mjs reads it through tsx's tsImport, which knip does not follow.
 */
export const REGION_PLACEHOLDER = '{region}';

/** The registry `registry` names in `region`. */
export function registryInRegion(registry: string, region: string): string {
  return registry.replaceAll(REGION_PLACEHOLDER, region);
}

/**
 * Whether `registry` differs per region (so a region must be given to name an image).
 * @public bin/images-build.mjs reads it through tsx's tsImport, which knip does not follow.
 */
export function isRegional(registry: string): boolean {
  return registry.includes(REGION_PLACEHOLDER);
}

/** `<registry>/<service>:<tag>`: the image of `service` in a registry without placeholder. */
export function imageUri(registry: string, service: string, tag: string): string {
  return `${registry}/${service}:${tag}`;
}

/**
 * Third-party images the regional stack runs (the cost data source, lib/constructs/cost-data-source.ts),
 * pinned to the versions of the pinned Helm charts. With `images.registry` set they are pulled from
 * `<registry>/<name>:<tag>` instead, so a registry mirror must hold them under these names
 * (docs/cost.md, "Images").
 */
export const THIRD_PARTY_IMAGES = {
  // OpenCost chart 2.5.17's appVersion (https://github.com/opencost/opencost-helm-chart, Chart.yaml).
  opencost: { upstream: 'ghcr.io/opencost/opencost', tag: '1.120.1' },
  // prometheus chart 27.19.0's appVersion (prometheus-community/helm-charts, charts/prometheus/Chart.yaml).
  prometheus: { upstream: 'quay.io/prometheus/prometheus', tag: 'v3.4.1' },
  'prometheus-config-reloader': {
    upstream: 'quay.io/prometheus-operator/prometheus-config-reloader',
    tag: 'v0.83.0',
  },
} as const;

export type ThirdPartyImageName = keyof typeof THIRD_PARTY_IMAGES;

/** Repository and tag of a third-party image: upstream, or the configured registry's mirror of it. */
export function thirdPartyImage(
  name: ThirdPartyImageName,
  registry: string | undefined,
  region: string,
): { readonly repository: string; readonly tag: string } {
  const { upstream, tag } = THIRD_PARTY_IMAGES[name];
  return { repository: registry ? `${registryInRegion(registry, region)}/${name}` : upstream, tag };
}

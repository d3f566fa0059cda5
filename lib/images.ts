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

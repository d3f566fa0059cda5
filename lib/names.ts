/**
 * Physical names that cross stack and region boundaries. A regional stack finds the global stack's
 * resources by these names (a CloudFormation stack cannot import another region's outputs); the one
 * value that cannot be named in advance, the accelerator listener ARN, travels as a CDK cross-region
 * reference.
 */
import type { PlatformConfig } from './config.js';

/** Envelope signing-key secret, `{"current":"…","previous":"…"}`, replicated to every region. */
export const signingKeySecretName = (config: PlatformConfig): string => `${config.projectName}/signing-key`;

/** IAM role the aggregator Lambda runs as; regional resource policies grant it the aggregate routes. */
export const aggregatorRoleName = (config: PlatformConfig): string => `${config.projectName}-aggregator`;

/** SSM String parameter, in each deployment region, holding that region's internal ALB DNS name. */
export const albHostParameterName = (config: PlatformConfig): string => `/${config.projectName}/alb-host`;

/** SSM path in the GLOBAL region under which each region publishes its regional API base URL. */
export const regionalApiParameterPath = (config: PlatformConfig): string =>
  `/${config.projectName}/regional-api`;

/** `/<project>/regional-api/<region>` (docs/aggregator.md, "Discovery contract"). */
export const regionalApiParameterName = (config: PlatformConfig, region: string): string =>
  `${regionalApiParameterPath(config)}/${region}`;

/**
 * Secret holding the deployment's internal CA (`{"certificatePem","privateKeyPem"}`), created in the
 * global region and replicated to every region, where each regional stack issues its certificates from it.
 */
export const internalCaSecretName = (config: PlatformConfig): string => `${config.projectName}/internal-ca`;

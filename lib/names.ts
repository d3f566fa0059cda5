/**
 * Physical names that cross stack and region boundaries. A regional stack finds the global stack's
 * resources by these names (a CloudFormation stack cannot import another region's outputs); the one
 * value that cannot be named in advance, the accelerator listener ARN, is written by the global stack
 * into an SSM parameter of each accelerator region (acceleratorListenerParameterName) and read there.
 *
 * Fixed names of resources that outlive `cdk destroy` under `removal_policy: "retain"` carry the
 * resource generation (generationSuffix): tables (contracts/tables.ts), the analytics stream, the warehouse
 * namespace and workgroup, the WAF log group.
 */
import type { PlatformConfig } from './config.js';
import { generationSuffix } from '../contracts/tables.js';

/** Envelope signing-key secret, `{"current":"…","previous":"…"}`, replicated to every region. */
export const signingKeySecretName = (config: PlatformConfig): string => `${config.projectName}/signing-key`;

/** IAM role the aggregator Lambda runs as; regional resource policies grant it the aggregate routes. */
export const aggregatorRoleName = (config: PlatformConfig): string => `${config.projectName}-aggregator`;

/** SSM String parameter, in each deployment region, holding that region's internal ALB DNS name. */
export const albHostParameterName = (config: PlatformConfig): string => `/${config.projectName}/alb-host`;

/** SSM path in the GLOBAL region under which each region publishes its regional API base URL. */
export const regionalApiParameterPath = (config: PlatformConfig): string =>
  `/${config.projectName}/regional-api`;

/**
 * The regional REST API of `region`: the regional stack names it so, and its alarms (in that stack and on
 * the global dashboard) find its metrics by this name.
 */
export const regionalApiName = (config: PlatformConfig, region: string): string =>
  `${config.projectName}-regional-api-${region}`;

/** The analytics REST API: the analytics stack names it so, and its alarms find its metrics by this name. */
export const analyticsApiName = (config: PlatformConfig): string => `${config.projectName}-analytics`;

/** `/<project>/regional-api/<region>` (docs/aggregator.md, "Discovery contract"). */
export const regionalApiParameterName = (config: PlatformConfig, region: string): string =>
  `${regionalApiParameterPath(config)}/${region}`;

/**
 * Secret holding the deployment's internal CA (`{"certificatePem","privateKeyPem"}`), created in the
 * global region and replicated to every region, where each regional stack issues its certificates from it.
 */
export const internalCaSecretName = (config: PlatformConfig): string => `${config.projectName}/internal-ca`;

/**
 * SSM String parameter, in each accelerator region, holding the accelerator listener ARN: written by the
 * global stack, read by the regional stack (a weak reference, resolved on every deploy of that stack).
 */
export const acceleratorListenerParameterName = (config: PlatformConfig): string =>
  `/${config.projectName}/accelerator-listener-arn`;

/** WAF logging requires the `aws-waf-logs-` prefix; retained under "retain", so it carries the generation. */
export const wafLogGroupName = (config: PlatformConfig): string =>
  `aws-waf-logs-${config.projectName}-global-api${generationSuffix(config.resourceGeneration)}`;

/** Redshift Serverless namespace and workgroup of the analytics warehouse. */
export const warehouseName = (config: PlatformConfig): string =>
  `${config.projectName}-analytics${generationSuffix(config.resourceGeneration)}`;

/**
 * What `cdk destroy` does with the platform's data (`removal_policy`): tables, buckets, the analytics
 * stream and warehouse namespace, API access logs and the WAF log group. docs/operations.md, "Teardown
 * and redeploy", lists them.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import type { PlatformConfig } from './config.js';

/** RETAIN under "retain" (the default), DESTROY under "destroy". */
export function dataRemovalPolicy(config: Pick<PlatformConfig, 'removalPolicy'>): RemovalPolicy {
  return config.removalPolicy === 'destroy' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;
}

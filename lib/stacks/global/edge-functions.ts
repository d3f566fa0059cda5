// The functions behind the global API's routes: the aggregator (fan-out to every regional API) and, with
// an accelerator, the control-plane and inference proxies that reach the regions over it. Created
// directly in the stack, so their logical IDs stay `Aggregator…`, `ControlPlaneProxy…`, `InferenceProxy…`.
import type { Role } from 'aws-cdk-lib/aws-iam';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import type { ApiDefinition } from '../../../contracts/api-routes.js';
import { aggregatorEnvironment } from '../../../contracts/env/aggregator.js';
import { proxyEnvironment } from '../../../contracts/env/proxy.js';
import type { PlatformConfig } from '../../config.js';
import {
  GLOBAL_PROXY_BUNDLE,
  PlatformFunction,
  routeFunctionTimeout,
} from '../../constructs/platform-function.js';
import { regionalApiParameterPath } from '../../names.js';

/** The aggregator, running as its named role (addAggregatorRole). */
export function addAggregator(
  stack: Construct,
  config: PlatformConfig,
  definition: ApiDefinition,
  role: Role,
): PlatformFunction {
  return new PlatformFunction(stack, 'Aggregator', {
    entryName: 'aggregator',
    description: `${config.projectName}: /api/v1/global/* fan-out to every regional API`,
    timeout: routeFunctionTimeout(definition, 'aggregator'),
    invokedBy: 'api-gateway',
    role,
    environment: aggregatorEnvironment({
      discovery: { source: 'ssm', parameterPath: regionalApiParameterPath(config) },
      expectedRegions: config.regions,
    }),
  });
}

export interface GlobalProxiesProps {
  readonly config: PlatformConfig;
  readonly definition: ApiDefinition;
  /** The accelerator's DNS name: the proxies reach every region's internal ALB through it. */
  readonly acceleratorDnsName: string;
  /** PEM of the internal CA, which issued the ALBs' certificates. */
  readonly caPem: string;
  /** The envelope signing key the proxies sign with. */
  readonly signingKeySecret: ISecret;
}

/** The control-plane and inference proxies of the global API, which read the signing key. */
export function addGlobalProxies(
  stack: Construct,
  props: GlobalProxiesProps,
): { readonly controlPlane: PlatformFunction; readonly inference: PlatformFunction } {
  const { config, definition } = props;
  const p = config.projectName;
  const environment = proxyEnvironment({
    mode: 'global',
    backendHostname: config.backendHostname,
    backendPort: 443,
    acceleratorDns: props.acceleratorDnsName,
    caPem: props.caPem,
    signingKeySecretArn: props.signingKeySecret.secretArn,
  });
  const controlPlane = new PlatformFunction(stack, 'ControlPlaneProxy', {
    entryName: 'control-plane-proxy',
    description: `${p}: /api/v1/{proxy+} to the regions over the accelerator`,
    timeout: routeFunctionTimeout(definition, 'control-plane-proxy'),
    invokedBy: 'api-gateway',
    environment,
    bundleDefines: GLOBAL_PROXY_BUNDLE,
  });
  const inference = new PlatformFunction(stack, 'InferenceProxy', {
    entryName: 'inference-stream-proxy',
    description: `${p}: /inference/{proxy+} streamed from the regions over the accelerator`,
    timeout: routeFunctionTimeout(definition, 'inference-stream-proxy'),
    invokedBy: 'api-gateway',
    environment,
    bundleDefines: GLOBAL_PROXY_BUNDLE,
  });
  props.signingKeySecret.grantRead(controlPlane);
  props.signingKeySecret.grantRead(inference);
  return { controlPlane, inference };
}

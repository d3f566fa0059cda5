// The Global Accelerator and its TCP/443 listener (a partition with Global Accelerator and at least one
// supported deployment region). The listener ARN is written into the SSM parameter
// `/<project>/accelerator-listener-arn` of each accelerator region, where that region's stack reads it to
// add its endpoint group (its internal ALB): a weak reference, no CDK cross-region export.
import { Accelerator, ConnectionProtocol, IpAddressType } from 'aws-cdk-lib/aws-globalaccelerator';
import type { Listener } from 'aws-cdk-lib/aws-globalaccelerator';
import type { Construct } from 'constructs';
import type { PlatformConfig } from '../../config.js';
import { AcceleratorListenerParameters } from '../../constructs/accelerator-listener-parameters.js';
import { acceleratorListenerParameterName } from '../../names.js';

export interface GlobalAccelerator {
  readonly accelerator: Accelerator;
  /** TCP/443 pass-through listener; each regional stack adds one endpoint group (its internal ALB). */
  readonly listener: Listener;
  /** Writers of the listener ARN into each accelerator region's SSM parameter. */
  readonly listenerParameters: AcceleratorListenerParameters;
}

/** Created in `stack` itself (logical IDs `Accelerator…`, `ListenerArnParameters…`). */
export function addGlobalAccelerator(stack: Construct, config: PlatformConfig): GlobalAccelerator {
  const p = config.projectName;
  const accelerator = new Accelerator(stack, 'Accelerator', {
    acceleratorName: `${p}-accelerator`,
    ipAddressType: IpAddressType.IPV4,
  });
  // TLS passes through to each region's internal ALB, which terminates it.
  const listener = accelerator.addListener('Https', {
    listenerName: `${p}-https`,
    protocol: ConnectionProtocol.TCP,
    portRanges: [{ fromPort: 443 }],
  });
  const listenerParameters = new AcceleratorListenerParameters(stack, 'ListenerArnParameters', {
    parameterName: acceleratorListenerParameterName(config),
    listenerArn: listener.listenerArn,
    regions: config.acceleratorRegions,
    projectName: p,
  });
  return { accelerator, listener, listenerParameters };
}

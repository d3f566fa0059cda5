// The accelerator endpoint group of an accelerator region: its internal ALB behind the global stack's
// listener. Weak reference: the global stack writes the listener ARN into this region's SSM parameter; the
// template reads it as an SSM parameter type, resolved on every deploy of this stack.
import type { Construct } from 'constructs';
import { CfnEndpointGroup } from 'aws-cdk-lib/aws-globalaccelerator';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import { DEFAULT_TRAFFIC_DIAL_PERCENTAGE } from '../../config.js';
import type { PlatformConfig } from '../../config.js';
import { TARGET_HEALTH_CHECK } from '../../constructs/internal-alb.js';
import { acceleratorListenerParameterName } from '../../names.js';

/** Created in `stack` itself (logical ID `AcceleratorEndpointGroup`). */
export function addAcceleratorEndpointGroup(
  stack: Construct,
  config: PlatformConfig,
  region: string,
  loadBalancerArn: string,
): CfnEndpointGroup {
  const listenerArn = StringParameter.valueForStringParameter(
    stack,
    acceleratorListenerParameterName(config),
  );
  return new CfnEndpointGroup(stack, 'AcceleratorEndpointGroup', {
    listenerArn,
    endpointGroupRegion: region,
    // An internal ALB endpoint always preserves client IPs (the ALB security group allows for it).
    endpointConfigurations: [{ endpointId: loadBalancerArn, clientIpPreservationEnabled: true, weight: 128 }],
    // From config, never pinned: an operator drains the region with accelerator.traffic_dial_percentage
    // (docs/operations.md), and a later deploy keeps that drain instead of resetting the dial.
    trafficDialPercentage:
      config.accelerator.trafficDialPercentage[region] ?? DEFAULT_TRAFFIC_DIAL_PERCENTAGE,
    // Mirrors the listener; for ALB endpoints the accelerator follows the ALB's own target health.
    healthCheckProtocol: 'HTTPS',
    healthCheckPort: 443,
    healthCheckPath: TARGET_HEALTH_CHECK.path,
    healthCheckIntervalSeconds: 10,
    thresholdCount: 3,
  });
}

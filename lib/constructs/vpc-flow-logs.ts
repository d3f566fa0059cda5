/**
 * VPC flow logs of all traffic (accepted and rejected) to a CloudWatch log group: what the region's VPC
 * and the analytics warehouse's VPC both keep for network forensics (cdk-nag VPC7).
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import { FlowLogDestination, FlowLogTrafficType } from 'aws-cdk-lib/aws-ec2';
import type { Vpc } from 'aws-cdk-lib/aws-ec2';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

/** Logs all traffic of `vpc` to a new log group `FlowLogs` of `scope`, kept for `retention`. */
export function logAllVpcTraffic(scope: Construct, vpc: Vpc, retention: RetentionDays): LogGroup {
  const logGroup = new LogGroup(scope, 'FlowLogs', { retention, removalPolicy: RemovalPolicy.DESTROY });
  vpc.addFlowLog('FlowLog', {
    destination: FlowLogDestination.toCloudWatchLogs(logGroup),
    trafficType: FlowLogTrafficType.ALL,
  });
  return logGroup;
}

/**
 * The region's VPC: public subnets (NAT gateways only), private subnets with egress for the EKS nodes and
 * pods, the internal ALB and the proxy Lambdas; flow logs of all traffic; and VPC endpoints.
 *
 * Endpoints, and why each:
 * - S3 and DynamoDB gateway endpoints: free, and they carry the bulk traffic that would otherwise pay for
 *   NAT (ECR image layers live in S3; cost reports; the regional cost-report table).
 * - ECR API + ECR Docker: every node pulls the service images; keeps pulls off NAT.
 * - Secrets Manager, SSM, Elastic Load Balancing: the regional proxy Lambdas may only open connections to
 *   the ALB and these endpoints (their security group has no internet egress), and they need exactly
 *   these three APIs (signing key, ALB host parameter, ALB verification). The pods read their secrets
 *   through the same endpoint.
 * - CloudWatch Logs: the services publish their embedded-metric-format metrics (queue depth, webhook
 *   outbox, cost reports) with PutLogEvents from the private subnets.
 * Calls to the central tables in the global region leave through NAT: gateway endpoints are regional.
 */
import {
  GatewayVpcEndpointAwsService,
  InterfaceVpcEndpointAwsService,
  IpAddresses,
  SubnetType,
  Vpc,
} from 'aws-cdk-lib/aws-ec2';
import type { ISecurityGroup, SubnetSelection } from 'aws-cdk-lib/aws-ec2';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { availabilityZonesFor } from '../availability-zone-lookup.js';
import type { AvailabilityZoneOptions } from '../availability-zone-lookup.js';
import { httpsFromVpcSecurityGroup } from './https-from-vpc.js';
import { logAllVpcTraffic } from './vpc-flow-logs.js';

/** Address space of every regional VPC (regions are never peered, so they may share it). */
const VPC_CIDR = '10.0.0.0/16';

/** How the region's AZs are chosen (lib/availability-zone-lookup.ts). */
export type RegionalNetworkProps = AvailabilityZoneOptions;

export class RegionalNetwork extends Construct {
  readonly vpc: Vpc;
  /** Where nodes, pods, the ALB and the proxies live. */
  readonly privateSubnets: SubnetSelection = { subnetType: SubnetType.PRIVATE_WITH_EGRESS };
  /** Security group of the interface endpoints: HTTPS from the VPC. */
  readonly endpointSecurityGroup: ISecurityGroup;

  constructor(scope: Construct, id: string, props: RegionalNetworkProps) {
    super(scope, id);
    // Account known (every `cdk deploy`): AZ names chosen by ID, so none EKS refuses; else Fn::GetAZs (2).
    const availabilityZones = availabilityZonesFor(this, props);
    this.vpc = new Vpc(this, 'Vpc', {
      ipAddresses: IpAddresses.cidr(VPC_CIDR),
      ...(availabilityZones ? { availabilityZones } : { maxAzs: 3 }),
      // natGateways keeps its default, one per AZ: an AZ outage must not cut the other AZs' egress.
      // No isolated subnets: nothing in the region lives without egress (no databases).
      subnetConfiguration: [
        { name: 'public', subnetType: SubnetType.PUBLIC, cidrMask: 24 },
        // /19 per AZ: Auto Mode gives every pod a VPC address.
        { name: 'private', subnetType: SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 19 },
      ],
      restrictDefaultSecurityGroup: true,
    });

    logAllVpcTraffic(this, this.vpc, RetentionDays.THREE_MONTHS);

    this.vpc.addGatewayEndpoint('S3', { service: GatewayVpcEndpointAwsService.S3 });
    this.vpc.addGatewayEndpoint('DynamoDb', { service: GatewayVpcEndpointAwsService.DYNAMODB });

    const endpointSecurityGroup = httpsFromVpcSecurityGroup(this, 'EndpointSecurityGroup', this.vpc, {
      group: 'VPC interface endpoints: HTTPS from the VPC',
      ingress: 'HTTPS from the VPC',
    });
    this.endpointSecurityGroup = endpointSecurityGroup;
    const interfaces: Record<string, InterfaceVpcEndpointAwsService> = {
      EcrApi: InterfaceVpcEndpointAwsService.ECR,
      EcrDocker: InterfaceVpcEndpointAwsService.ECR_DOCKER,
      SecretsManager: InterfaceVpcEndpointAwsService.SECRETS_MANAGER,
      Ssm: InterfaceVpcEndpointAwsService.SSM,
      ElasticLoadBalancing: InterfaceVpcEndpointAwsService.ELASTIC_LOAD_BALANCING,
      CloudWatchLogs: InterfaceVpcEndpointAwsService.CLOUDWATCH_LOGS,
    };
    for (const [name, service] of Object.entries(interfaces)) {
      this.vpc.addInterfaceEndpoint(name, {
        service,
        subnets: this.privateSubnets,
        securityGroups: [endpointSecurityGroup],
        privateDnsEnabled: true,
      });
    }
  }
}

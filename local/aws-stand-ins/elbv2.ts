/**
 * Elastic Load Balancing v2 stand-in (query protocol, XML): DescribeLoadBalancers with Marker/PageSize
 * paging — what the regional proxy calls to check that the ALB host from SSM is an internal load
 * balancer of its own account. Load balancers are per region.
 */
import { randomBytes } from 'node:crypto';
import { partitionOf } from '../../contracts/partition.js';
import type { CredentialStore } from '../sigv4-verifier.js';
import { AwsServiceError, startStandInServer, xmlEscape, type StandInServer } from './protocol.js';

interface LoadBalancerRecord {
  name: string;
  dnsName: string;
  scheme: 'internal' | 'internet-facing';
  /** Owner account of the ARN; the platform's account by default. */
  accountId?: string;
}

interface StoredLoadBalancer {
  arn: string;
  name: string;
  dnsName: string;
  scheme: string;
  createdTime: string;
  region: string;
}

export interface Elbv2StandIn extends StandInServer {
  /** Registers a load balancer in a region; returns its ARN. */
  addLoadBalancer(region: string, lb: LoadBalancerRecord): string;
}

const XMLNS = 'http://elasticloadbalancing.amazonaws.com/doc/2015-12-01/';
const MAX_PAGE_SIZE = 400;

function memberXml(lb: StoredLoadBalancer): string {
  return (
    '<member>' +
    `<LoadBalancerArn>${xmlEscape(lb.arn)}</LoadBalancerArn>` +
    `<DNSName>${xmlEscape(lb.dnsName)}</DNSName>` +
    '<CanonicalHostedZoneId>Z35SXDOTRQ7X7K</CanonicalHostedZoneId>' +
    `<CreatedTime>${lb.createdTime}</CreatedTime>` +
    `<LoadBalancerName>${xmlEscape(lb.name)}</LoadBalancerName>` +
    `<Scheme>${xmlEscape(lb.scheme)}</Scheme>` +
    '<VpcId>vpc-0local000000000000</VpcId>' +
    '<State><Code>active</Code></State>' +
    '<Type>application</Type>' +
    `<AvailabilityZones><member><ZoneName>${lb.region}a</ZoneName><SubnetId>subnet-0local00000000000a</SubnetId></member></AvailabilityZones>` +
    '<IpAddressType>ipv4</IpAddressType>' +
    '</member>'
  );
}

export async function startElbv2StandIn(opts: {
  accountId: string;
  credentials: CredentialStore;
}): Promise<Elbv2StandIn> {
  const balancers: StoredLoadBalancer[] = [];
  const server = await startStandInServer({
    service: 'elasticloadbalancing',
    credentials: opts.credentials,
    protocol: {
      kind: 'query',
      xmlns: XMLNS,
      operations: {
        DescribeLoadBalancers: (params, ctx) => {
          const pageSize = Number(params.get('PageSize') ?? MAX_PAGE_SIZE);
          if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
            throw new AwsServiceError('ValidationError', `PageSize must be between 1 and ${MAX_PAGE_SIZE}`);
          }
          const names = [...params.entries()]
            .filter(([k]) => k.startsWith('Names.member.'))
            .map(([, v]) => v);
          const arns = [...params.entries()]
            .filter(([k]) => k.startsWith('LoadBalancerArns.member.'))
            .map(([, v]) => v);
          const inRegion = balancers.filter(
            (lb) =>
              lb.region === ctx.region &&
              (names.length === 0 || names.includes(lb.name)) &&
              (arns.length === 0 || arns.includes(lb.arn)),
          );
          if ((names.length > 0 || arns.length > 0) && inRegion.length === 0) {
            throw new AwsServiceError('LoadBalancerNotFound', 'One or more load balancers not found');
          }
          const start = Number(params.get('Marker') ?? 0);
          if (!Number.isInteger(start) || start < 0)
            throw new AwsServiceError('ValidationError', 'Invalid Marker');
          const page = inRegion.slice(start, start + pageSize);
          const next =
            start + pageSize < inRegion.length ? `<NextMarker>${start + pageSize}</NextMarker>` : '';
          return `<LoadBalancers>${page.map(memberXml).join('')}</LoadBalancers>${next}`;
        },
      },
    },
  });
  return {
    ...server,
    addLoadBalancer(region, lb) {
      const account = lb.accountId ?? opts.accountId;
      const arn = `arn:${partitionOf(region).partition}:elasticloadbalancing:${region}:${account}:loadbalancer/app/${lb.name}/${randomBytes(8).toString('hex')}`;
      balancers.push({
        arn,
        name: lb.name,
        dnsName: lb.dnsName,
        scheme: lb.scheme,
        createdTime: new Date().toISOString(),
        region,
      });
      return arn;
    },
  };
}

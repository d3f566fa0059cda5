/**
 * The region's internal ALB (docs/regional-stack.md): HTTPS:443 with the internal-CA
 * certificate for `backend.<project>.<internal_domain>`, TLS 1.3 with a 1.2 fallback, idle timeout 300 s,
 * invalid headers dropped, access logs in S3. Listener rules come from contracts/routing.ts (longest prefix
 * first; `/` is the default action); one IP target group per service, HTTPS to the pods, health check
 * GET /healthz, deregistration delay 900 s (an inference stream may run 15 minutes).
 */
import { Duration, Tags } from 'aws-cdk-lib';
import type { ICertificate } from 'aws-cdk-lib/aws-certificatemanager';
import { Peer, Port } from 'aws-cdk-lib/aws-ec2';
import type { IVpc, SubnetSelection, SecurityGroup } from 'aws-cdk-lib/aws-ec2';
import {
  ApplicationListenerRule,
  ApplicationLoadBalancer,
  ApplicationProtocol,
  ApplicationTargetGroup,
  ListenerAction,
  ListenerCondition,
  Protocol,
  SslPolicy,
  TargetType,
} from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import type { ApplicationListener } from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { ALB_ROUTES, defaultRoute, listenerRules } from '../../contracts/routing.js';
import type { AlbServiceName } from '../../contracts/routing.js';
import { httpsFromVpcSecurityGroup } from './https-from-vpc.js';

/**
 * TLS 1.3 with a TLS 1.2 fallback restricted to ECDHE + AES-GCM. The only clients are the platform's own
 * proxies (Node.js 24, TLS 1.3), so the CBC suites of the recommended policy buy nothing.
 */
const ALB_SSL_POLICY = SslPolicy.TLS13_RES;
/** Load balancer idle timeout (the pods' keep-alive outlasts it: docs/regional-stack.md). */
const ALB_IDLE_TIMEOUT = Duration.seconds(300);
/** Deregistration delay (covers a 900 s inference stream). */
const DEREGISTRATION_DELAY = Duration.seconds(900);
/** Target health check of every service (the pods' `/healthz`). */
export const TARGET_HEALTH_CHECK = {
  path: '/healthz',
  protocol: Protocol.HTTPS,
  interval: Duration.seconds(15),
  timeout: Duration.seconds(5),
  healthyThresholdCount: 2,
  unhealthyThresholdCount: 2,
  healthyHttpCodes: '200',
} as const;

export interface InternalAlbProps {
  /** The region's VPC. */
  readonly vpc: IVpc;
  /** Private subnets with egress, where the load balancer's nodes go. */
  readonly subnets: SubnetSelection;
  /** Certificate for `backend.<project>.<internal_domain>` (internal CA, imported into ACM). */
  readonly certificate: ICertificate;
  /**
   * EKS cluster name: EKS Auto Mode registers targets only in target groups tagged
   * `eks:eks-cluster-name=<cluster>` (its AmazonEKSLoadBalancingPolicy is scoped by that tag).
   */
  readonly clusterName: string;
  /**
   * Accept Global Accelerator traffic. An internal ALB endpoint always has client IP preservation on, so
   * the accelerator delivers the callers' own (public, unpredictable) addresses: 443 must be open to any
   * IPv4 source. Only the accelerator can route internet traffic to this internal ALB.
   */
  readonly acceptAccelerator: boolean;
  /** Bucket of the access logs (SSE-S3: the only encryption ALB log delivery supports). */
  readonly accessLogs: IBucket;
}

export class InternalAlb extends Construct {
  /** The load balancer. */
  readonly loadBalancer: ApplicationLoadBalancer;
  /** HTTPS:443 with the routes of contracts/routing.ts. */
  readonly listener: ApplicationListener;
  /** The load balancer's security group (egress to the pods is added by the stack). */
  readonly securityGroup: SecurityGroup;
  /** The target group of each ALB-facing service. */
  readonly targetGroups: ReadonlyMap<AlbServiceName, ApplicationTargetGroup>;

  constructor(scope: Construct, id: string, props: InternalAlbProps) {
    super(scope, id);
    this.securityGroup = this.addSecurityGroup(props);
    this.loadBalancer = new ApplicationLoadBalancer(this, 'LoadBalancer', {
      vpc: props.vpc,
      vpcSubnets: props.subnets,
      internetFacing: false,
      securityGroup: this.securityGroup,
      idleTimeout: ALB_IDLE_TIMEOUT,
      dropInvalidHeaderFields: true,
    });
    this.loadBalancer.logAccessLogs(props.accessLogs, 'alb');

    const targetGroups = this.addTargetGroups(props);
    this.targetGroups = targetGroups;
    const targetGroupOf = (service: AlbServiceName): ApplicationTargetGroup => {
      const found = targetGroups.get(service);
      if (!found) throw new Error(`No target group for ${service}`);
      return found;
    };

    this.listener = this.loadBalancer.addListener('Https', {
      port: 443,
      protocol: ApplicationProtocol.HTTPS,
      certificates: [props.certificate],
      sslPolicy: ALB_SSL_POLICY,
      // The security group rules above are the whole ingress; no implicit 0.0.0.0/0.
      open: false,
      defaultAction: ListenerAction.forward([targetGroupOf(defaultRoute().service)]),
    });
    for (const rule of listenerRules()) {
      new ApplicationListenerRule(this, `Route${rule.priority}`, {
        listener: this.listener,
        priority: rule.priority,
        conditions: [ListenerCondition.pathPatterns([...rule.pathPatterns])],
        action: ListenerAction.forward([targetGroupOf(rule.route.service)]),
      });
    }
  }

  /** HTTPS from the VPC (the regional proxies) and, in an accelerator region, from the accelerator. */
  private addSecurityGroup(props: InternalAlbProps): SecurityGroup {
    // Egress only to the pods, added by the stack once the cluster exists.
    const securityGroup = httpsFromVpcSecurityGroup(this, 'SecurityGroup', props.vpc, {
      group: 'Internal ALB: HTTPS from the VPC (regional proxies) and the accelerator',
      ingress: 'HTTPS from the VPC: the regional proxies',
    });
    if (props.acceptAccelerator) {
      securityGroup.addIngressRule(
        Peer.anyIpv4(),
        Port.tcp(443),
        'HTTPS via Global Accelerator (client IP preservation: callers keep their public addresses)',
      );
      NagSuppressions.addResourceSuppressions(securityGroup, [
        {
          id: 'AwsSolutions-EC23',
          reason:
            'Internal ALB in private subnets: the internet reaches it only through the Global Accelerator, which ' +
            'always preserves client IPs for internal ALBs, and those clients (the global proxy Lambdas) have no ' +
            'fixed addresses. Every request still needs TLS to the internal-CA name and a valid HMAC envelope',
        },
      ]);
    }
    return securityGroup;
  }

  /** One HTTPS target group per routed service, tagged for the cluster's TargetGroupBindings. */
  private addTargetGroups(props: InternalAlbProps): Map<AlbServiceName, ApplicationTargetGroup> {
    const services = [...new Set(ALB_ROUTES.map((route) => route.service))];
    const targetGroups = new Map<AlbServiceName, ApplicationTargetGroup>();
    for (const service of services) {
      const port = ALB_ROUTES.find((route) => route.service === service)?.port ?? 443;
      const targetGroup = new ApplicationTargetGroup(this, `${pascal(service)}Targets`, {
        vpc: props.vpc,
        targetType: TargetType.IP,
        protocol: ApplicationProtocol.HTTPS,
        port,
        healthCheck: TARGET_HEALTH_CHECK,
        deregistrationDelay: DEREGISTRATION_DELAY,
      });
      Tags.of(targetGroup).add('eks:eks-cluster-name', props.clusterName);
      Tags.of(targetGroup).add('gco:service', service);
      targetGroups.set(service, targetGroup);
    }
    return targetGroups;
  }
}

/** `manifest-processor` → `ManifestProcessor`. */
function pascal(name: string): string {
  return name
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

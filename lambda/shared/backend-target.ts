/**
 * Where the edge proxies send a request. Both modes speak HTTPS to a regional internal load balancer,
 * presenting the SNI name / Host `backend.<project>.<internal_domain>` and trusting only the internal CA:
 *
 * - global: the accelerator DNS name (TCP/443 pass-through, so TLS still ends at the load balancer);
 * - regional: the load balancer host registered in SSM, accepted only after ELBv2 confirms that it is an
 *   `internal` load balancer owned by this function's account (so a tampered parameter cannot send signed
 *   requests, which carry a valid envelope, to a host outside the account or onto the internet).
 */
import { Agent } from 'node:https';
import type { LookupFunction } from 'node:net';
import {
  paginateDescribeLoadBalancers,
  type ElasticLoadBalancingV2Client,
  type LoadBalancer,
} from '@aws-sdk/client-elastic-load-balancing-v2';
import { GetParameterCommand, type SSMClient } from '@aws-sdk/client-ssm';
import { describeError, internalError, EdgeHttpError } from './errors.js';
import type { EdgeLogger } from './logger.js';
import { isHostname } from '../../contracts/env/reader.js';

export interface BackendTarget {
  /** Host the TCP connection goes to (DNS name or IP literal). */
  readonly host: string;
  readonly port: number;
  /** SNI name, certificate name check and Host header. */
  readonly servername: string;
  /** Keep-alive agent trusting only the internal CA; reused across warm invocations. */
  readonly agent: Agent;
  /** DNS override (local platform and tests); the system resolver otherwise. */
  readonly lookup?: LookupFunction;
}

export interface TargetOptions {
  /** PEM of the internal CA. */
  caPem: string;
  /** `backend.<project>.<internal_domain>`. */
  servername: string;
  port: number;
  lookup?: LookupFunction;
  /** Idle keep-alive sockets are closed after this long (below the ALB's 300 s idle timeout). */
  keepAliveMsecs?: number;
}

/** Builds targets for hosts, one keep-alive agent per host (a resolver may see the same host again). */
export function targetFactory(opts: TargetOptions): (host: string) => BackendTarget {
  const agents = new Map<string, Agent>();
  return (host) => {
    let agent = agents.get(host);
    if (agent === undefined) {
      agent = new Agent({
        keepAlive: true,
        // Free sockets are dropped after 60 s idle: well inside the load balancer's 300 s idle timeout.
        timeout: opts.keepAliveMsecs ?? 60_000,
        ca: opts.caPem,
        servername: opts.servername,
        // TLS 1.2 is the floor of the load balancer policy (TLS 1.3 with 1.2 fallback).
        minVersion: 'TLSv1.2',
      });
      agents.set(host, agent);
    }
    return {
      host,
      port: opts.port,
      servername: opts.servername,
      agent,
      ...(opts.lookup ? { lookup: opts.lookup } : {}),
    };
  };
}

export interface ResolveContext {
  /** The Lambda context's function ARN: its account is the default owner the ALB must have. */
  invokedFunctionArn?: string;
}

export interface TargetResolver {
  resolve(ctx: ResolveContext): Promise<BackendTarget>;
}

/** Global mode: one fixed target (the accelerator). */
export function staticTargetResolver(target: BackendTarget): TargetResolver {
  return { resolve: () => Promise.resolve(target) };
}

/** Account field of an ARN (`arn:<partition>:<service>:<region>:<account>:…`), any partition. */
export function accountFromArn(arn: string | undefined): string | undefined {
  if (arn === undefined) return undefined;
  const parts = arn.split(':');
  const account = parts[4];
  return parts.length >= 6 && parts[0] === 'arn' && account !== undefined && /^[0-9]{12}$/.test(account)
    ? account
    : undefined;
}

export interface RegionalTargetResolverOptions {
  ssm: Pick<SSMClient, 'send'>;
  elbv2: ElasticLoadBalancingV2Client;
  /** SSM parameter holding the load balancer DNS name. */
  parameterName: string;
  /** Required owner; defaults to the invoking function's account. */
  accountId?: string;
  /** How long a verified host is used before SSM and ELBv2 are asked again (default 5 min). */
  ttlMs?: number;
  /** After a failed lookup or refused host, answer from that failure for this long (default 5 s). */
  failureRetryMs?: number;
  makeTarget: (host: string) => BackendTarget;
  logger: EdgeLogger;
  now?: () => number;
}

/** A refused load balancer: answered as 500 (the proxy's configuration is wrong), never forwarded. */
function refused(reason: string): EdgeHttpError {
  return internalError(reason);
}

/**
 * Regional mode: SSM → host, ELBv2 → verified, cached for `ttlMs`. Concurrent cold requests share one
 * lookup. A failure is remembered briefly so a misconfiguration does not turn every request into two
 * AWS API calls (and throttling).
 */
export class RegionalTargetResolver implements TargetResolver {
  private readonly ttlMs: number;
  private readonly failureRetryMs: number;
  private readonly now: () => number;
  private cached: { target: BackendTarget; expiresAt: number } | undefined;
  private failure: { error: EdgeHttpError; until: number } | undefined;
  private inFlight: Promise<BackendTarget> | undefined;

  constructor(private readonly opts: RegionalTargetResolverOptions) {
    this.ttlMs = opts.ttlMs ?? 300_000;
    this.failureRetryMs = opts.failureRetryMs ?? 5_000;
    this.now = opts.now ?? Date.now;
  }

  async resolve(ctx: ResolveContext): Promise<BackendTarget> {
    const now = this.now();
    if (this.cached !== undefined && now < this.cached.expiresAt) return this.cached.target;
    if (this.failure !== undefined && now < this.failure.until) throw this.failure.error;
    if (this.inFlight === undefined) {
      const run = this.lookup(ctx);
      this.inFlight = run;
      const clear = (): void => {
        if (this.inFlight === run) this.inFlight = undefined;
      };
      void run.then(clear, clear);
    }
    return this.inFlight;
  }

  private async lookup(ctx: ResolveContext): Promise<BackendTarget> {
    try {
      const target = this.opts.makeTarget(await this.verifiedHost(ctx));
      this.cached = { target, expiresAt: this.now() + this.ttlMs };
      this.failure = undefined;
      return target;
    } catch (error) {
      const failure = error instanceof EdgeHttpError ? error : internalError('alb_lookup_failed', error);
      this.failure = { error: failure, until: this.now() + this.failureRetryMs };
      this.opts.logger.error(
        {
          reason: failure.reason,
          parameter: this.opts.parameterName,
          ...describeError(failure.cause),
        },
        'backend load balancer refused or not resolvable; request not forwarded',
      );
      throw failure;
    }
  }

  private async verifiedHost(ctx: ResolveContext): Promise<string> {
    const account = this.opts.accountId ?? accountFromArn(ctx.invokedFunctionArn);
    if (account === undefined) throw refused('account_unknown');

    const parameter = await this.opts.ssm.send(
      new GetParameterCommand({ Name: this.opts.parameterName, WithDecryption: false }),
    );
    const host = parameter.Parameter?.Value?.trim().toLowerCase().replace(/\.$/, '');
    if (host === undefined || host === '' || !isHostname(host)) throw refused('alb_parameter_invalid');

    const lb = await this.findLoadBalancer(host);
    if (lb === undefined) throw refused('alb_not_found');
    if (lb.Scheme !== 'internal') throw refused('alb_not_internal');
    const owner = accountFromArn(lb.LoadBalancerArn);
    if (owner !== account) throw refused('alb_foreign_account');
    this.opts.logger.info(
      {
        host,
        load_balancer_arn: lb.LoadBalancerArn,
        scheme: lb.Scheme,
      },
      'backend load balancer verified',
    );
    return host;
  }

  /** DescribeLoadBalancers cannot filter by DNS name, so the account's load balancers are paged through. */
  private async findLoadBalancer(host: string): Promise<LoadBalancer | undefined> {
    const pages = paginateDescribeLoadBalancers({ client: this.opts.elbv2, pageSize: 400 }, {});
    for await (const page of pages) {
      const match = page.LoadBalancers?.find((lb) => lb.DNSName?.toLowerCase() === host);
      if (match !== undefined) return match;
    }
    return undefined;
  }
}

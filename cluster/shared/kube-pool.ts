/**
 * One keep-alive agent per Kubernetes API server and TLS identity.
 *
 * client-node 1.4 builds a fresh `https.Agent` (without keep-alive) inside every
 * `applySecurityAuthentication()` / `applyToFetchOptions()` call, so every API call opens (and closes)
 * its own TCP + TLS connection. Its public hook is the request context: the generated APIs and
 * `KubernetesObjectApi` call `applySecurityAuthentication(context)` on the KubeConfig before each
 * request, and send with whatever agent the context then holds (`RequestContext.setAgent`); `Metrics`
 * (and `Watch`, `Log`) send with the `agent` of `applyToFetchOptions()`. `PooledKubeConfig` lets
 * client-node compute the TLS options exactly as it always does (CA from the kubeconfig or the
 * service account, client certificate or exec credential, `skipTLSVerify`, `tls-server-name`) and
 * then swaps its throw-away agent for the pooled keep-alive agent with the same options, so
 * verification is whatever client-node would have done: the pool never relaxes it.
 *
 * The pool is process-wide and keyed by server URL + TLS identity (CA, client certificate and key,
 * pfx, passphrase, `rejectUnauthorized`, server name): two KubeConfigs for the same server and
 * identity share one agent; a different CA or client certificate gets its own. Clusters reached
 * through a proxy (`proxy-url`) keep client-node's own proxy agent.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';

import { createConfiguration, KubeConfig, ServerConfiguration } from '@kubernetes/client-node';
import type { ApiConstructor, ApiType, Cluster } from '@kubernetes/client-node';
import { kubeHttpLibrary } from './kube-http.js';

type RequestContext = Parameters<KubeConfig['applySecurityAuthentication']>[0];
type FetchInit = Awaited<ReturnType<KubeConfig['applyToFetchOptions']>>;
type Agent = http.Agent | https.Agent;

/** Bounds of every pooled agent. */
const KUBE_AGENT_LIMITS = {
  /** Concurrent connections per API server and identity; further calls queue on the agent. */
  maxSockets: 32,
  /** Idle connections kept per API server and identity. */
  maxFreeSockets: 32,
  /**
   * An idle connection is closed after this long, before the server closes it, so a request is never
   * written into a connection the server is closing (the ECONNRESET race; ./kube-http.ts retries the
   * idempotent requests that still meet it). The API server closes idle connections after 90 s, HTTP/1.1
   * and HTTP/2 alike, and announces nothing (k8s.io/apiserver secure serving, `IdleTimeout: 90 *
   * time.Second`: https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiserver/pkg/server/secure_serving.go).
   * A Node server such as the simulator (local/kube-api-simulator/server.ts) keeps Node's default
   * `keepAliveTimeout` of 5 s (https://nodejs.org/api/http.html#serverkeepalivetimeout), announces it as
   * `Keep-Alive: timeout=5` and closes after 5 s plus its `keepAliveTimeoutBuffer` of 1 s; Node's agent
   * closes a connection one second before an announced timeout (`agentKeepAliveTimeoutBuffer`:
   * https://nodejs.org/api/http.html#new-agentoptions), here after 4 s idle, so the shorter announced
   * timeout wins over this one.
   */
  idleTimeoutMs: 30_000,
  /**
   * Agents kept (server × identity); past this the oldest is forgotten — its calls in flight finish and
   * its idle connections close after the idle timeout — so rotating client certificates cannot grow
   * the pool without bound.
   */
  maxAgents: 64,
} as const;

const agents = new Map<string, Agent>();

function part(value: unknown): string {
  if (value === undefined || value === null) return '-';
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (Array.isArray(value)) return `[${value.map(part).join(',')}]`;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return String(value);
  return JSON.stringify(value) ?? '?';
}

/** The pool key: server URL + every option that decides which TLS identity a connection has. */
function kubeAgentKey(server: string, options: https.AgentOptions | undefined): string {
  const o = options ?? {};
  const identity = [o.ca, o.cert, o.key, o.pfx, o.passphrase, o.rejectUnauthorized, o.servername]
    .map(part)
    .join('\n');
  return `${server} ${createHash('sha256').update(identity).digest('base64url')}`;
}

/**
 * The pooled keep-alive agent for `server` with the TLS options client-node chose (`made` is the
 * throw-away agent it built for one call). Returns `made` unchanged for proxied clusters.
 */
export function pooledKubeAgent(cluster: Cluster | null, made: Agent | undefined): Agent | undefined {
  if (!cluster || cluster.proxyUrl || !made) return made;
  // Only client-node's plain agents are replaced; anything else (a proxy agent) is left alone.
  if (made.constructor !== https.Agent && made.constructor !== http.Agent) return made;
  const tls = made instanceof https.Agent ? made.options : undefined;
  const key = kubeAgentKey(cluster.server, tls);
  let agent = agents.get(key);
  if (!agent) {
    const common = {
      keepAlive: true,
      maxSockets: KUBE_AGENT_LIMITS.maxSockets,
      maxFreeSockets: KUBE_AGENT_LIMITS.maxFreeSockets,
      timeout: KUBE_AGENT_LIMITS.idleTimeoutMs,
      scheduling: 'lifo' as const,
    };
    agent = tls ? new https.Agent({ ...tls, ...common }) : new http.Agent(common);
    agents.set(key, agent);
    if (agents.size > KUBE_AGENT_LIMITS.maxAgents) {
      const oldest = agents.keys().next().value;
      if (oldest !== undefined) agents.delete(oldest);
    }
  }
  return agent;
}

/** How many pooled agents exist (one per API server and TLS identity). */
export function kubeAgentCount(): number {
  return agents.size;
}

/** Closes every pooled connection and forgets the agents (shutdown, tests). */
export function destroyKubeAgents(): void {
  for (const agent of agents.values()) agent.destroy();
  agents.clear();
}

/** A KubeConfig whose API clients (makeApiClient, KubernetesObjectApi, Metrics) share pooled agents. */
export class PooledKubeConfig extends KubeConfig {
  /** client-node's makeApiClient, with ./kube-http.ts as the transport. */
  override makeApiClient<T extends ApiType>(apiClientType: ApiConstructor<T>): T {
    const cluster = this.getCurrentCluster();
    if (!cluster) throw new Error('No active cluster!');
    return new apiClientType(
      createConfiguration({
        baseServer: new ServerConfiguration(cluster.server, {}),
        authMethods: { default: this },
        httpApi: kubeHttpLibrary,
      }),
    );
  }

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await super.applySecurityAuthentication(context);
    const agent = pooledKubeAgent(this.getCurrentCluster(), context.getAgent());
    if (agent) context.setAgent(agent);
  }

  override async applyToFetchOptions(opts: https.RequestOptions): Promise<FetchInit> {
    const init = await super.applyToFetchOptions(opts);
    const made = init.agent;
    if (made instanceof http.Agent) init.agent = pooledKubeAgent(this.getCurrentCluster(), made);
    return init;
  }
}

const pooledCopies = new WeakMap<KubeConfig, PooledKubeConfig>();

/**
 * `kc` itself when it is already pooled, otherwise a pooled KubeConfig over the same clusters, users
 * and contexts (one per `kc`). Every service builds its API clients through this, so a KubeConfig from
 * anywhere (tests, overrides) still shares the pool.
 */
export function pooledKubeConfig(kc: KubeConfig): PooledKubeConfig {
  if (kc instanceof PooledKubeConfig) return kc;
  let pooled = pooledCopies.get(kc);
  if (!pooled) {
    pooled = new PooledKubeConfig();
    pooled.loadFromOptions({
      clusters: kc.clusters,
      users: kc.users,
      contexts: kc.contexts,
      currentContext: kc.currentContext,
    });
    pooledCopies.set(kc, pooled);
  }
  return pooled;
}

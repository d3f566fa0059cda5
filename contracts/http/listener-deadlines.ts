/**
 * The deadlines of every HTTP listener of the platform — the cluster services, the local ALB router and
 * the local API Gateway emulator — in one place, with the rule that ties them to the spec's load balancer
 * idle timeout of 300 s. docs/timeouts.md has the table and the reasons.
 *
 * Node's server timers (https://nodejs.org/api/http.html#serverheaderstimeout,
 * https://nodejs.org/api/http.html#serverrequesttimeout): `headersTimeout` and `requestTimeout` run from
 * a request's first byte until its head, respectively its whole body, has been received (then 408 and
 * the connection closes); neither covers the answer, so a long or streaming response is never cut by
 * them. `keepAliveTimeout` closes a connection idle between requests; `server.timeout` closes one with no
 * byte either way while a request is open. Node enforces the first two every `connectionsCheckingInterval`.
 */
import type { Server } from 'node:http';

export interface ListenerDeadlines {
  /** From a request's first byte to the end of its head; 408 after. */
  readonly headersMs: number;
  /** From a request's first byte to the end of its body; 408 after. Never covers the response. */
  readonly requestMs: number;
  /** No byte either way on a connection with an open request (or answer); the connection is closed. 0 = none. */
  readonly idleMs: number;
  /** A keep-alive connection idle between requests is closed after this. */
  readonly keepAliveMs: number;
}

/**
 * The internal ALB's idle timeout (spec: "load balancer idle timeout | all | 300 s"); the ALB attribute
 * idle_timeout.timeout_seconds. It closes a client or target connection with no data sent or received for
 * that long:
 * https://docs.aws.amazon.com/elasticloadbalancing/latest/application/edit-load-balancer-attributes.html#connection-idle-timeout
 */
export const ALB_IDLE_TIMEOUT_MS = 300_000;

/**
 * The cluster services behind the ALB. Keep-alive and idle outlast the ALB's idle timeout, so the ALB
 * always closes an idle connection first and never sends a request on a socket the target is closing
 * (which it would answer 502; AWS: "configure the idle timeout of your application to be larger than the
 * idle timeout configured for the load balancer"). The request deadline is far shorter: the edge sends
 * every body whole (API Gateway buffers requests; bodies are ≤ 1 MiB), and past the 29 s integration
 * timeout no caller is waiting for a buffered answer, so a body still arriving after 30 s is a slow or
 * stalled client, never a real one.
 */
export const SERVICE_LISTENER_DEADLINES: ListenerDeadlines = {
  headersMs: 20_000,
  requestMs: 30_000,
  idleMs: ALB_IDLE_TIMEOUT_MS + 5_000,
  keepAliveMs: ALB_IDLE_TIMEOUT_MS + 5_000,
};

/**
 * The local ALB router: the ALB's idle timeout on client connections (idle and keep-alive). An ALB has no
 * per-request deadline (a client sending a byte before each idle period keeps its upload going:
 * https://docs.aws.amazon.com/elasticloadbalancing/latest/application/load-balancer-troubleshooting.html#http-408-issues);
 * it streams the body to the target, whose own 30 s request deadline ends a trickle (the router passes
 * the target's 408 on). The router's request deadline equals the idle timeout, as a backstop for a target
 * without one; its head deadline is Node's default (60 s), the ALB documents none.
 */
export const ALB_LISTENER_DEADLINES: ListenerDeadlines = {
  headersMs: 60_000,
  requestMs: ALB_IDLE_TIMEOUT_MS,
  idleMs: ALB_IDLE_TIMEOUT_MS,
  keepAliveMs: ALB_IDLE_TIMEOUT_MS,
};

/**
 * API Gateway's idle limit on a streamed response: "30 seconds for edge-optimized APIs, 5 minutes for
 * Regional APIs" (developer guide, "Stream the integration response for your proxy integrations").
 */
const API_GATEWAY_STREAM_IDLE_MS = { EDGE: 30_000, REGIONAL: 300_000 } as const;

/**
 * The local API Gateway emulator. API Gateway documents no deadline for receiving a request; the emulator
 * reads the whole body before it runs anything (as API Gateway buffers requests), so it bounds that at
 * 30 s, just above the 29 s integration timeout. Idle is the endpoint type's stream idle limit; keep-alive
 * is Node's default (API Gateway documents none).
 */
export function apiGatewayListenerDeadlines(endpointType: 'EDGE' | 'REGIONAL'): ListenerDeadlines {
  return {
    headersMs: 20_000,
    requestMs: 30_000,
    idleMs: API_GATEWAY_STREAM_IDLE_MS[endpointType],
    keepAliveMs: 5_000,
  };
}

/** How often Node checks the head and request deadlines: a tenth of the shorter one, between 0.1 and 1 s. */
function checkingIntervalMs(deadlines: ListenerDeadlines): number {
  return Math.min(1_000, Math.max(100, Math.floor(Math.min(deadlines.headersMs, deadlines.requestMs) / 10)));
}

/**
 * Sets the deadlines on a Node HTTP(S) server; call before `listen` (Node reads the checking interval when
 * it starts listening). The head deadline is capped by the request deadline, as Node requires.
 */
export function applyListenerDeadlines(server: Server, deadlines: ListenerDeadlines): void {
  server.requestTimeout = deadlines.requestMs;
  server.headersTimeout = Math.min(deadlines.headersMs, deadlines.requestMs);
  server.keepAliveTimeout = deadlines.keepAliveMs;
  server.setTimeout(deadlines.idleMs);
  // A createServer option @types/node does not declare on Server; Node reads the property when the server
  // starts listening (lib/_http_server.js, setupConnectionsTracking).
  Object.assign(server, { connectionsCheckingInterval: checkingIntervalMs(deadlines) });
}

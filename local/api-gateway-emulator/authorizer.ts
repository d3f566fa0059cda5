/**
 * A REQUEST Lambda authorizer as API Gateway runs it: the identity source (one header) must be present
 * or the caller gets 401 without an invocation; the returned IAM policy is evaluated against the
 * request's method ARN (explicit Deny wins, then Allow, else not authorized); the policy — or the
 * authorizer's `Unauthorized` — is cached per identity-source value for the TTL (0 = no cache), and a
 * cached policy is re-evaluated for every method ARN, exactly the behaviour that makes a too-narrow
 * cached policy deny a caller's other routes. Other authorizer failures are 500 and never cached.
 */
import type { APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';
import { gatewayError, gatewayResponse, MESSAGES, type HttpAnswer } from './responses.js';

export type RequestAuthorizerHandler = (
  event: APIGatewayRequestAuthorizerEvent,
  context: Context,
) => Promise<unknown>;

export interface RequestAuthorizerOptions {
  handler: RequestAuthorizerHandler;
  /** Physical name of the authorizer function (its Lambda context). */
  functionName: string;
  /** Lowercase header name of the identity source (`method.request.header.Authorization`). */
  identityHeader: string;
  /** Result cache TTL; 0 turns caching off. */
  ttlSeconds: number;
  /** How long the authorizer may take before the request fails with 500. */
  timeoutMs: number;
  now?: () => number;
}

export type AuthorizerDecision =
  | { kind: 'allow'; context: Record<string, unknown>; invoked: boolean }
  | { kind: 'refuse'; answer: HttpAnswer; invoked: boolean };

interface Statement {
  effect: 'Allow' | 'Deny';
  actions: string[];
  resources: string[];
}

interface Policy {
  principalId: string;
  statements: Statement[];
  context: Record<string, string | number | boolean>;
}

const configurationError = (): HttpAnswer => gatewayError(500, 'AuthorizerConfigurationException', null);

function globRegex(pattern: string): RegExp {
  const escaped = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`);
}

function asList(value: unknown): string[] | undefined {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value;
  return undefined;
}

/** Validates an authorizer result; undefined when API Gateway would refuse it (500). */
function parsePolicy(result: unknown): Policy | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const r = result as Record<string, unknown>;
  if (typeof r.principalId !== 'string') return undefined;
  const doc = r.policyDocument;
  if (typeof doc !== 'object' || doc === null) return undefined;
  const rawStatements = (doc as Record<string, unknown>).Statement;
  const list = Array.isArray(rawStatements)
    ? rawStatements
    : rawStatements === undefined
      ? []
      : [rawStatements];
  const statements: Statement[] = [];
  for (const s of list) {
    if (typeof s !== 'object' || s === null) return undefined;
    const st = s as Record<string, unknown>;
    const actions = asList(st.Action);
    const resources = asList(st.Resource);
    if ((st.Effect !== 'Allow' && st.Effect !== 'Deny') || !actions || !resources) return undefined;
    statements.push({ effect: st.Effect, actions, resources });
  }
  const context: Record<string, string | number | boolean> = {};
  if (r.context !== undefined && r.context !== null) {
    if (typeof r.context !== 'object' || Array.isArray(r.context)) return undefined;
    for (const [key, value] of Object.entries(r.context as Record<string, unknown>)) {
      // API Gateway accepts only flat string/number/boolean values in the context.
      if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean')
        return undefined;
      context[key] = value;
    }
  }
  return { principalId: r.principalId, statements, context };
}

type PolicyVerdict = 'allow' | 'deny' | 'not-covered';

/** IAM evaluation of `execute-api:Invoke` on `methodArn`: explicit Deny, then Allow, else implicit deny. */
function evaluatePolicy(statements: readonly Statement[], methodArn: string): PolicyVerdict {
  const covers = (s: Statement) =>
    s.actions.some((a) => globRegex(a.toLowerCase()).test('execute-api:invoke')) &&
    s.resources.some((r) => globRegex(r).test(methodArn));
  if (statements.some((s) => s.effect === 'Deny' && covers(s))) return 'deny';
  return statements.some((s) => s.effect === 'Allow' && covers(s)) ? 'allow' : 'not-covered';
}

class AuthorizerTimeout extends Error {}

export class RequestAuthorizer {
  /** Per identity value: the policy, or 'unauthorized' (a 401 is cached like a policy). */
  private readonly cache = new Map<string, { policy: Policy | 'unauthorized'; expiresAt: number }>();
  private readonly now: () => number;

  constructor(private readonly opts: RequestAuthorizerOptions) {
    this.now = opts.now ?? Date.now;
  }

  get functionName(): string {
    return this.opts.functionName;
  }

  get timeoutMs(): number {
    return this.opts.timeoutMs;
  }

  get identityHeader(): string {
    return this.opts.identityHeader;
  }

  /**
   * Decides for one request. `identity` is the identity-source header's value; `invoke` runs the handler
   * (the caller builds the event and context).
   */
  async authorize(
    identity: string | undefined,
    methodArn: string,
    invoke: (handler: RequestAuthorizerHandler) => Promise<unknown>,
  ): Promise<AuthorizerDecision> {
    let invoked = false;
    const unauthorized = (): AuthorizerDecision => ({
      kind: 'refuse',
      answer: gatewayError(401, 'UnauthorizedException', MESSAGES.unauthorized),
      invoked,
    });
    if (identity === undefined || identity.trim() === '') return unauthorized();
    const ttlMs = this.opts.ttlSeconds * 1000;
    const cached = ttlMs > 0 ? this.cache.get(identity) : undefined;
    let policy: Policy;
    if (cached !== undefined && cached.expiresAt > this.now()) {
      if (cached.policy === 'unauthorized') return unauthorized();
      policy = cached.policy;
    } else {
      invoked = true;
      let result: unknown;
      let timer: NodeJS.Timeout | undefined;
      try {
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new AuthorizerTimeout()), this.opts.timeoutMs);
        });
        result = await Promise.race([invoke(this.opts.handler), timeout]);
      } catch (error) {
        // The one error a Lambda authorizer may throw on purpose.
        if (error instanceof Error && error.message === 'Unauthorized') {
          if (ttlMs > 0) this.cache.set(identity, { policy: 'unauthorized', expiresAt: this.now() + ttlMs });
          return unauthorized();
        }
        return { kind: 'refuse', answer: configurationError(), invoked };
      } finally {
        clearTimeout(timer);
      }
      const parsed = parsePolicy(result);
      if (parsed === undefined) return { kind: 'refuse', answer: configurationError(), invoked };
      policy = parsed;
      if (ttlMs > 0) this.cache.set(identity, { policy, expiresAt: this.now() + ttlMs });
    }
    const verdict = evaluatePolicy(policy.statements, methodArn);
    if (verdict === 'deny') {
      return {
        kind: 'refuse',
        answer: gatewayResponse(403, 'AccessDeniedException', { Message: MESSAGES.explicitDeny }),
        invoked,
      };
    }
    if (verdict === 'not-covered') {
      return {
        kind: 'refuse',
        answer: gatewayResponse(403, 'AccessDeniedException', { Message: MESSAGES.notAuthorized }),
        invoked,
      };
    }
    // REST APIs hand context values to the integration as strings, next to the principal.
    const context: Record<string, unknown> = { principalId: policy.principalId };
    for (const [key, value] of Object.entries(policy.context)) context[key] = String(value);
    return { kind: 'allow', context, invoked };
  }

  /** Forgets every cached policy. */
  flush(): void {
    this.cache.clear();
  }
}

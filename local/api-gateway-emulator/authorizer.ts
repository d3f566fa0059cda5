/**
 * A REQUEST Lambda authorizer as API Gateway runs it: the identity source (one header) must be present
 * or the caller gets 401 without an invocation; the returned IAM policy is evaluated against the
 * request's method ARN (explicit Deny wins, then Allow, else not authorized); the policy — or the
 * authorizer's `Unauthorized` — is cached per identity-source value for the TTL (0 = no cache), and a
 * cached policy is re-evaluated for every method ARN, exactly the behaviour that makes a too-narrow
 * cached policy deny a caller's other routes. Other authorizer failures are 500 and never cached.
 *
 * The cache key. For a REQUEST authorizer "these parameters [the identity sources] will be used to
 * derive the authorization caching key and to perform runtime validation … verifying all of the
 * identity-related request parameters are present, not null and non-empty" (API Gateway API reference,
 * Authorizer.identitySource, https://docs.aws.amazon.com/apigateway/latest/api/API_Authorizer.html; developer
 * guide, "Use API Gateway Lambda authorizers",
 * https://docs.aws.amazon.com/apigateway/latest/developerguide/apigateway-use-lambda-authorizer.html).
 * AWS does not say which value a repeated identity header contributes, while the authorizer receives
 * every value in `multiValueHeaders` (and the last one in `headers`). The emulator keys the cache on the
 * whole ordered list of the header's values, so the key always covers everything the authorizer can
 * decide on: `Authorization: junk` + `Authorization: <key>` is its own cache entry, never the entry of
 * `junk` (which once let the string alias a valid key for the TTL) nor that of `<key>` (where a cached
 * refusal would lock the key's owner out). docs/local-platform.md, "Lambda authorizer".
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

/** Every value of the identity-source header, in arrival order (`rawHeaders` is Node's name/value list). */
export function identitySourceValues(rawHeaders: readonly string[], name: string): string[] {
  const values: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if ((rawHeaders[i] ?? '').toLowerCase() === name) values.push(rawHeaders[i + 1] ?? '');
  }
  return values;
}

/** The cache key of a list of values: JSON, so no two different lists share a key. */
const cacheKeyOf = (values: readonly string[]): string => JSON.stringify(values);

export class RequestAuthorizer {
  /** Per identity (`cacheKeyOf` its values): the policy, or 'unauthorized' (a 401 is cached like a policy). */
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
   * Decides for one request. `identity` is every value of the identity-source header
   * (`identitySourceValues`); `invoke` runs the handler (the caller builds the event and context).
   */
  async authorize(
    identity: readonly string[],
    methodArn: string,
    invoke: (handler: RequestAuthorizerHandler) => Promise<unknown>,
  ): Promise<AuthorizerDecision> {
    let invoked = false;
    const unauthorized = (): AuthorizerDecision => ({
      kind: 'refuse',
      answer: gatewayError(401, 'UnauthorizedException', MESSAGES.unauthorized),
      invoked,
    });
    // Present, not null and non-empty: a header whose every value is blank is no identity.
    if (identity.every((value) => value.trim() === '')) return unauthorized();
    const key = cacheKeyOf(identity);
    const ttlMs = this.opts.ttlSeconds * 1000;
    const cached = ttlMs > 0 ? this.cache.get(key) : undefined;
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
          if (ttlMs > 0) this.cache.set(key, { policy: 'unauthorized', expiresAt: this.now() + ttlMs });
          return unauthorized();
        }
        return { kind: 'refuse', answer: configurationError(), invoked };
      } finally {
        clearTimeout(timer);
      }
      const parsed = parsePolicy(result);
      if (parsed === undefined) return { kind: 'refuse', answer: configurationError(), invoked };
      policy = parsed;
      if (ttlMs > 0) this.cache.set(key, { policy, expiresAt: this.now() + ttlMs });
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

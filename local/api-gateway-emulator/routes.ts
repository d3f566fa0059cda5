/**
 * Resource matching as API Gateway REST APIs do it, built from an ApiDefinition's routes (no route list
 * of its own). Every prefix of a route path is a resource, as the stacks create them. A request path is
 * matched segment by segment, preferring a literal segment, then `{param}`, then a greedy `{name+}`
 * (one or more segments); a dead end backtracks to the next candidate. The method is looked up on the
 * resource that matched — a resource without that method does not fall back to a broader one.
 */
import type { ApiDefinition, HttpMethod, RouteDefinition } from '../../contracts/api-routes.js';

interface ResourceNode {
  readonly resourcePath: string;
  readonly literals: Map<string, ResourceNode>;
  param?: { name: string; node: ResourceNode };
  greedy?: { name: string; node: ResourceNode };
  readonly methods: Map<HttpMethod, RouteDefinition>;
}

export type RouteMatch =
  | {
      kind: 'matched';
      route: RouteDefinition;
      /** The resource template, e.g. `/api/v1/{proxy+}`. */
      resourcePath: string;
      /** Decoded values; null when the resource has no parameters (as in the proxy event). */
      pathParameters: Record<string, string> | null;
    }
  /** No resource for the path, or the resource lacks the method: API Gateway's 403 for both. */
  | { kind: 'missing'; resourcePath: string | undefined };

const PARAM_RE = /^\{([A-Za-z0-9._-]+)\}$/;
const GREEDY_RE = /^\{([A-Za-z0-9._-]+)\+\}$/;

function node(resourcePath: string): ResourceNode {
  return { resourcePath, literals: new Map(), methods: new Map() };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export class RouteTable {
  private readonly root = node('/');

  constructor(api: Pick<ApiDefinition, 'routes'>) {
    for (const route of api.routes) this.add(route);
  }

  private add(route: RouteDefinition): void {
    let current = this.root;
    const parts = route.path.split('/').filter((p) => p !== '');
    parts.forEach((part, i) => {
      const path = `/${parts.slice(0, i + 1).join('/')}`;
      const greedy = GREEDY_RE.exec(part);
      const param = PARAM_RE.exec(part);
      if (greedy) {
        if (i !== parts.length - 1)
          throw new Error(`${route.path}: a greedy parameter must be the last segment`);
        current.greedy ??= { name: greedy[1] ?? 'proxy', node: node(path) };
        current = current.greedy.node;
      } else if (param) {
        current.param ??= { name: param[1] ?? 'param', node: node(path) };
        if (current.param.name !== param[1]) {
          throw new Error(`${route.path}: sibling path parameters must share a name (${current.param.name})`);
        }
        current = current.param.node;
      } else {
        let next = current.literals.get(part);
        if (next === undefined) current.literals.set(part, (next = node(path)));
        current = next;
      }
    });
    if (current.methods.has(route.method)) throw new Error(`${route.method} ${route.path} is defined twice`);
    current.methods.set(route.method, route);
  }

  /** `path`: the request path without the stage, percent-encoding as sent, no query string. */
  match(method: string, path: string): RouteMatch {
    const raw = path === '/' || path === '' ? [] : path.replace(/^\//, '').split('/');
    const found = this.find(this.root, raw, 0, {});
    if (found === undefined) return { kind: 'missing', resourcePath: undefined };
    const route = found.node.methods.get(method.toUpperCase() as HttpMethod);
    if (route === undefined) return { kind: 'missing', resourcePath: found.node.resourcePath };
    return {
      kind: 'matched',
      route,
      resourcePath: found.node.resourcePath,
      pathParameters: Object.keys(found.params).length > 0 ? found.params : null,
    };
  }

  private find(
    at: ResourceNode,
    raw: readonly string[],
    i: number,
    params: Record<string, string>,
  ): { node: ResourceNode; params: Record<string, string> } | undefined {
    if (i === raw.length) return { node: at, params };
    const segment = raw[i] ?? '';
    const decoded = safeDecode(segment);
    if (segment !== '') {
      const literal = at.literals.get(decoded);
      const viaLiteral = literal && this.find(literal, raw, i + 1, params);
      if (viaLiteral) return viaLiteral;
      if (at.param) {
        const viaParam = this.find(at.param.node, raw, i + 1, { ...params, [at.param.name]: decoded });
        if (viaParam) return viaParam;
      }
    }
    if (at.greedy) {
      const rest = raw.slice(i).join('/');
      if (rest !== '')
        return { node: at.greedy.node, params: { ...params, [at.greedy.name]: safeDecode(rest) } };
    }
    return undefined;
  }
}

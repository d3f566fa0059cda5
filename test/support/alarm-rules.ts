/**
 * CloudWatch alarm notification semantics over synthesized CloudFormation templates, for
 * test/infra/alarm-evaluation.test.ts: the alarm graph (metric alarms, composite alarms with their
 * AlarmRule parsed, actions, ActionsSuppressor) and which alarms notify when one alarm changes state.
 *
 * Reproduced behaviour (CloudWatch documentation):
 * - an alarm runs its AlarmActions when it transitions to ALARM and its OKActions when it transitions to
 *   OK, and only on a transition (PutMetricAlarm / PutCompositeAlarm, AlarmActions: "The actions to
 *   execute when this alarm transitions to the ALARM state from any other state",
 *   https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_PutCompositeAlarm.html);
 * - a composite alarm is in ALARM while its rule is true, OK otherwise, and "actions are taken only when
 *   the composite alarm changes state"
 *   (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/Create_Composite_Alarm.html);
 * - the rule language: ALARM("name or ARN"), OK(...), INSUFFICIENT_DATA(...), TRUE, FALSE, AND, OR, NOT
 *   and parentheses (AlarmRule, same page); NOT binds tighter than AND, AND tighter than OR;
 * - a composite whose ActionsSuppressor is in ALARM runs no actions
 *   (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/alarm-suppression.html). The wait and
 *   extension periods are not modelled: a suppressor in ALARM at the transition suppresses it.
 * - ActionsEnabled false: no actions at all.
 */

export type AlarmState = 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';

type Json = Record<string, unknown>;

/** A rule expression. `ref` is an alarm's key (`<stack>/<logical id>`). */
export type Rule =
  | { readonly kind: 'const'; readonly value: boolean }
  | { readonly kind: 'state'; readonly state: AlarmState; readonly ref: string }
  | { readonly kind: 'not'; readonly operand: Rule }
  | { readonly kind: 'and' | 'or'; readonly left: Rule; readonly right: Rule };

interface GraphAlarm {
  /** `<stack>/<logical id>`. */
  readonly key: string;
  readonly name: string;
  readonly stack: string;
  readonly composite: boolean;
  readonly alarmActions: readonly string[];
  readonly okActions: readonly string[];
  readonly actionsEnabled: boolean;
  /** Composite alarms only. */
  readonly rule?: Rule;
  /** Composite alarms only: the key of the suppressor alarm. */
  readonly suppressor?: string;
}

export interface AlarmGraph {
  readonly alarms: ReadonlyMap<string, GraphAlarm>;
  /** The metric alarms' keys, in template order. */
  readonly metricAlarms: readonly string[];
}

/** A template as synthesized: the stack's name and its JSON. */
export interface SynthesizedTemplate {
  readonly stackName: string;
  readonly template: Json;
}

// ---- reading templates ---------------------------------------------------------------------------

/** Marks a reference inside a flattened value: brackets no alarm name or ARN contains. */
const REF_OPEN = '\u27e6ref:';
const REF_CLOSE = '\u27e7';

/** How a reference (`<stack>/<logical id>` of a GetAtt, or `Ref:<id>`) appears in flattened text. */
export const referenceText = (target: string): string => `${REF_OPEN}${target}${REF_CLOSE}`;

/**
 * A CloudFormation string value as text; the ARN of an alarm of the same template becomes a reference
 * marker (`Fn::GetAtt [id, Arn]`), any other reference its own marker (never a valid alarm).
 */
function flatten(value: unknown, stack: string): string {
  if (typeof value === 'string') return value;
  const v = value as { 'Fn::GetAtt'?: [string, string]; 'Fn::Join'?: [string, unknown[]]; Ref?: string };
  if (v['Fn::GetAtt']) return referenceText(`${stack}/${v['Fn::GetAtt'][0]}`);
  if (v['Fn::Join']) return v['Fn::Join'][1].map((part) => flatten(part, stack)).join(v['Fn::Join'][0]);
  if (v.Ref !== undefined) return referenceText(`Ref:${v.Ref}`);
  throw new Error(`unsupported value in an alarm rule: ${JSON.stringify(value)}`);
}

/** The actions of a property (a list of ARNs or references) as comparable text. */
function actionList(value: unknown, stack: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new Error(`actions must be a list, got ${JSON.stringify(value)}`);
  return value.map((v) => flatten(v, stack));
}

/** Every alarm of the templates, composite rules parsed and references resolved to alarm keys. */
export function alarmGraph(templates: readonly SynthesizedTemplate[]): AlarmGraph {
  const alarms = new Map<string, GraphAlarm>();
  const metricAlarms: string[] = [];
  const byName = new Map<string, string>();
  const pending: { key: string; stack: string; props: Json }[] = [];
  for (const { stackName: stack, template } of templates) {
    const resources = (template.Resources ?? {}) as Record<string, { Type: string; Properties?: Json }>;
    for (const [id, resource] of Object.entries(resources)) {
      const key = `${stack}/${id}`;
      const props = resource.Properties ?? {};
      if (resource.Type === 'AWS::CloudWatch::Alarm') {
        const name = typeof props.AlarmName === 'string' ? props.AlarmName : key;
        alarms.set(key, {
          key,
          name,
          stack,
          composite: false,
          alarmActions: actionList(props.AlarmActions, stack),
          okActions: actionList(props.OKActions, stack),
          actionsEnabled: props.ActionsEnabled !== false,
        });
        metricAlarms.push(key);
        byName.set(name, key);
      } else if (resource.Type === 'AWS::CloudWatch::CompositeAlarm') {
        const name = typeof props.AlarmName === 'string' ? props.AlarmName : key;
        byName.set(name, key);
        pending.push({ key, stack, props });
      }
    }
  }
  // Composites last: their rules may name any alarm (by name or ARN), composites included.
  const resolve = (target: string): string => {
    if (target.startsWith(REF_OPEN)) {
      const key = target.slice(REF_OPEN.length, -REF_CLOSE.length);
      if (!alarms.has(key) && !pending.some((p) => p.key === key)) {
        throw new Error(`the rule refers to ${key}, which is no alarm of the templates`);
      }
      return key;
    }
    const key = byName.get(target);
    if (key === undefined)
      throw new Error(`the rule refers to alarm "${target}", which is not in the templates`);
    return key;
  };
  for (const { key, stack, props } of pending) {
    const rule = parseRule(flatten(props.AlarmRule, stack), resolve);
    const suppressor =
      props.ActionsSuppressor === undefined ? undefined : resolve(flatten(props.ActionsSuppressor, stack));
    alarms.set(key, {
      key,
      name: typeof props.AlarmName === 'string' ? props.AlarmName : key,
      stack,
      composite: true,
      alarmActions: actionList(props.AlarmActions, stack),
      okActions: actionList(props.OKActions, stack),
      actionsEnabled: props.ActionsEnabled !== false,
      rule,
      ...(suppressor !== undefined ? { suppressor } : {}),
    });
  }
  return { alarms, metricAlarms };
}

// ---- the rule language ---------------------------------------------------------------------------

type Token =
  | { readonly t: 'fn'; readonly state: AlarmState; readonly target: string }
  | { readonly t: 'const'; readonly value: boolean }
  | { readonly t: 'op'; readonly op: 'AND' | 'OR' | 'NOT' }
  | { readonly t: '(' | ')' };

const FUNCTIONS: readonly AlarmState[] = ['INSUFFICIENT_DATA', 'ALARM', 'OK'];

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const fail = (why: string): never => {
    throw new Error(
      `alarm rule: ${why} at ${i} in ${JSON.stringify(text.replace(/\u27e6ref:|\u27e7/g, ''))}`,
    );
  };
  while (i < text.length) {
    const c = text[i] as string;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '(' || c === ')') {
      tokens.push({ t: c });
      i++;
      continue;
    }
    const word = /^[A-Z_]+/.exec(text.slice(i))?.[0];
    if (word === undefined) fail(`unexpected ${JSON.stringify(c)}`);
    const w = word as string;
    if (w === 'TRUE' || w === 'FALSE') {
      tokens.push({ t: 'const', value: w === 'TRUE' });
      i += w.length;
    } else if (w === 'AND' || w === 'OR' || w === 'NOT') {
      tokens.push({ t: 'op', op: w });
      i += w.length;
    } else if ((FUNCTIONS as readonly string[]).includes(w)) {
      i += w.length;
      while (/\s/.test(text[i] ?? '')) i++;
      if (text[i] !== '(') fail(`${w} needs (`);
      i++;
      while (/\s/.test(text[i] ?? '')) i++;
      // The argument: a quoted name or ARN (quotes optional for a name without spaces or parentheses).
      let target: string;
      if (text[i] === '"') {
        const end = text.indexOf('"', i + 1);
        if (end < 0) fail('unterminated "');
        target = text.slice(i + 1, end);
        i = end + 1;
      } else {
        const m = /^[^\s()]+/.exec(text.slice(i));
        if (!m) fail(`${w} needs an alarm`);
        target = (m as RegExpExecArray)[0];
        i += target.length;
      }
      while (/\s/.test(text[i] ?? '')) i++;
      if (text[i] !== ')') fail(`${w}(...) needs )`);
      i++;
      tokens.push({ t: 'fn', state: w as AlarmState, target });
    } else {
      fail(`unknown word ${w}`);
    }
  }
  return tokens;
}

/** Parses an AlarmRule; `resolve` maps a name or ARN to the alarm key (and throws for an unknown one). */
export function parseRule(text: string, resolve: (target: string) => string): Rule {
  const tokens = tokenize(text);
  let at = 0;
  const peek = (): Token | undefined => tokens[at];
  const fail = (why: string): never => {
    throw new Error(
      `alarm rule: ${why} (token ${at}) in ${JSON.stringify(text.replace(/\u27e6ref:|\u27e7/g, ''))}`,
    );
  };
  const isOp = (op: 'AND' | 'OR' | 'NOT'): boolean => {
    const t = peek();
    return t?.t === 'op' && t.op === op;
  };
  const orExpr = (): Rule => {
    let left = andExpr();
    while (isOp('OR')) {
      at++;
      left = { kind: 'or', left, right: andExpr() };
    }
    return left;
  };
  const andExpr = (): Rule => {
    let left = notExpr();
    while (isOp('AND')) {
      at++;
      left = { kind: 'and', left, right: notExpr() };
    }
    return left;
  };
  const notExpr = (): Rule => {
    if (isOp('NOT')) {
      at++;
      return { kind: 'not', operand: notExpr() };
    }
    return primary();
  };
  const primary = (): Rule => {
    const t = peek();
    if (t === undefined) return fail('unexpected end');
    at++;
    if (t.t === 'const') return { kind: 'const', value: t.value };
    if (t.t === 'fn') return { kind: 'state', state: t.state, ref: resolve(t.target) };
    if (t.t === '(') {
      const inner = orExpr();
      if (peek()?.t !== ')') fail('missing )');
      at++;
      return inner;
    }
    return fail(`unexpected ${t.t === 'op' ? t.op : t.t}`);
  };
  const rule = orExpr();
  if (at !== tokens.length) fail('trailing tokens');
  return rule;
}

// ---- evaluation ----------------------------------------------------------------------------------

/** Every alarm's state: the metric alarms' as given (OK when not), the composites' from their rules. */
export function evaluate(
  graph: AlarmGraph,
  metricStates: ReadonlyMap<string, AlarmState>,
): Map<string, AlarmState> {
  const states = new Map<string, AlarmState>();
  for (const key of graph.metricAlarms) states.set(key, metricStates.get(key) ?? 'OK');
  const visiting = new Set<string>();
  const stateOf = (key: string): AlarmState => {
    const known = states.get(key);
    if (known !== undefined) return known;
    const alarm = graph.alarms.get(key);
    if (!alarm?.rule) throw new Error(`no alarm ${key}`);
    if (visiting.has(key)) throw new Error(`composite alarms in a cycle through ${alarm.name}`);
    visiting.add(key);
    const state: AlarmState = holds(alarm.rule, stateOf) ? 'ALARM' : 'OK';
    visiting.delete(key);
    states.set(key, state);
    return state;
  };
  for (const key of graph.alarms.keys()) stateOf(key);
  return states;
}

function holds(rule: Rule, stateOf: (key: string) => AlarmState): boolean {
  switch (rule.kind) {
    case 'const':
      return rule.value;
    case 'state':
      return stateOf(rule.ref) === rule.state;
    case 'not':
      return !holds(rule.operand, stateOf);
    case 'and':
      return holds(rule.left, stateOf) && holds(rule.right, stateOf);
    case 'or':
      return holds(rule.left, stateOf) || holds(rule.right, stateOf);
  }
}

/** One notification: which alarm ran its actions, on entering which state. */
export interface Notification {
  readonly alarm: string;
  readonly state: AlarmState;
  readonly actions: readonly string[];
}

/** The notifications CloudWatch sends when the states go from `before` to `after`. */
export function notifications(
  graph: AlarmGraph,
  before: ReadonlyMap<string, AlarmState>,
  after: ReadonlyMap<string, AlarmState>,
): Notification[] {
  const sent: Notification[] = [];
  for (const alarm of graph.alarms.values()) {
    const from = before.get(alarm.key);
    const to = after.get(alarm.key);
    if (from === to || to === undefined || !alarm.actionsEnabled) continue;
    if (alarm.suppressor !== undefined && after.get(alarm.suppressor) === 'ALARM') continue;
    const actions = to === 'ALARM' ? alarm.alarmActions : to === 'OK' ? alarm.okActions : [];
    if (actions.length > 0) sent.push({ alarm: alarm.key, state: to, actions });
  }
  return sent;
}

/**
 * The ordered pairs (stuck, next) of metric alarms for which `next` going into ALARM while `stuck` is
 * in ALARM (every other alarm OK) sends no ALARM notification at all.
 */
export function silencedPairs(graph: AlarmGraph): { readonly stuck: string; readonly next: string }[] {
  const silenced: { stuck: string; next: string }[] = [];
  for (const stuck of graph.metricAlarms) {
    const before = evaluate(graph, new Map([[stuck, 'ALARM']]));
    for (const next of graph.metricAlarms) {
      if (next === stuck) continue;
      const after = evaluate(
        graph,
        new Map([
          [stuck, 'ALARM'],
          [next, 'ALARM'],
        ]),
      );
      if (!notifications(graph, before, after).some((n) => n.state === 'ALARM')) {
        silenced.push({ stuck, next });
      }
    }
  }
  return silenced;
}

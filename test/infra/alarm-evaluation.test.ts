/**
 * No alarm stuck in ALARM can keep another failure from notifying (docs/operations.md, "Why every alarm
 * notifies on its own"). The alarm graph is read from the SYNTHESIZED templates of every stack (the
 * default configuration, and three regions with the analytics API and environment), and evaluated with
 * CloudWatch's semantics (test/support/alarm-rules.ts: a composite notifies only when its own state
 * changes, a metric alarm with actions on its own transitions, an ActionsSuppressor in ALARM suppresses):
 * for every ordered pair of alarms (A stuck in ALARM, then B goes into ALARM), B's transition must send
 * an ALARM notification, except the pairs docs/operations.md lists as deliberate, each with its reason.
 *
 * The evaluator itself is checked first on hand-written templates, including the design this replaced
 * (actionless children under one notifying OR composite), where it must find every pair silenced.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from '@jest/globals';
import {
  alarmGraph,
  evaluate,
  notifications,
  parseRule,
  referenceText,
  silencedPairs,
  type AlarmGraph,
  type SynthesizedTemplate,
} from '../support/alarm-rules.js';
import { buildForAssertions } from '../support/platform-app.js';

type Json = Record<string, unknown>;

const CONFIGS: Record<string, Json> = {
  default: {},
  'three regions, analytics API and environment': {
    regions: ['us-east-1', 'eu-west-1', 'ap-southeast-2'],
    analytics_api: { enabled: true },
    analytics_environment: { enabled: true },
  },
};

/** Every stack of the app as `cdk synth` writes it. */
function synthesized(context: Json): SynthesizedTemplate[] {
  const { app } = buildForAssertions(context, { nag: false });
  return app.synth().stacks.map((s) => ({ stackName: s.stackName, template: s.template as Json }));
}

// ---- the deliberate exceptions, as docs/operations.md lists them ---------------------------------

interface DocumentedException {
  readonly stuck: RegExp;
  readonly next: RegExp;
  readonly reason: string;
}

const DOCS = join(process.cwd(), 'docs', 'operations.md');
const START = '<!-- alarm-exceptions:start -->';
const END = '<!-- alarm-exceptions:end -->';

/** `<project>` and `<region>` in a documented alarm name match any project or region. */
function namePattern(name: string): RegExp {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped.replace(/<project>|<region>/g, '[a-z0-9-]+')}$`);
}

/**
 * The list between the markers: one line per exception, "- `<stuck>` then `<next>`: <reason>", or the
 * single line "None." when there is none.
 */
function documentedExceptions(markdown: string): DocumentedException[] {
  const start = markdown.indexOf(START);
  const end = markdown.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/operations.md has no ${START} … ${END} list`);
  const lines = markdown
    .slice(start + START.length, end)
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  if (lines.length === 0) throw new Error('the exceptions list is empty: write "None." when there is none');
  if (lines.length === 1 && lines[0] === 'None.') return [];
  return lines.map((line) => {
    const m = /^- `([^`]+)` then `([^`]+)`: (.{20,})$/.exec(line);
    if (!m) throw new Error(`not an exception line: ${line}`);
    return { stuck: namePattern(m[1] as string), next: namePattern(m[2] as string), reason: m[3] as string };
  });
}

const nameOf = (graph: AlarmGraph, key: string): string => graph.alarms.get(key)?.name ?? key;

describe('the documented exceptions list', () => {
  const wrap = (body: string): string => `# x\n${START}\n${body}\n${END}\n`;

  test('"None." is an empty list; a line names the stuck and the silenced alarm, with its reason', () => {
    expect(documentedExceptions(wrap('None.'))).toEqual([]);
    const [e] = documentedExceptions(
      wrap(
        '- `<project>-<region>-alb-elb-5xx` then `<project>-<region>-alb-target-5xx`: one cause, paged once already',
      ),
    );
    expect(e?.stuck.test('gco-us-east-1-alb-elb-5xx')).toBe(true);
    expect(e?.next.test('gco-us-east-1-alb-target-5xx')).toBe(true);
    expect(e?.next.test('gco-us-east-1-alb-target-5xx-2')).toBe(false);
  });

  test('a line without a reason, or no list at all, is refused', () => {
    expect(() => documentedExceptions(wrap('- `a` then `b`'))).toThrow(/not an exception line/);
    expect(() => documentedExceptions(wrap(''))).toThrow(/write "None."/);
    expect(() => documentedExceptions('# no markers')).toThrow(/has no/);
  });
});

// ---- the evaluator on hand-written templates -----------------------------------------------------

const TOPIC = { Ref: 'Topic' };
const arn = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });
const metricAlarm = (name: string, actions = true): Json => ({
  Type: 'AWS::CloudWatch::Alarm',
  Properties: { AlarmName: name, ...(actions ? { AlarmActions: [TOPIC], OKActions: [TOPIC] } : {}) },
});
const composite = (name: string, rule: unknown, extra: Json = {}): Json => ({
  Type: 'AWS::CloudWatch::CompositeAlarm',
  Properties: { AlarmName: name, AlarmRule: rule, AlarmActions: [TOPIC], OKActions: [TOPIC], ...extra },
});
const stackOf = (resources: Json): SynthesizedTemplate[] => [
  { stackName: 's', template: { Resources: resources } },
];

describe('the evaluator', () => {
  const graph = alarmGraph(stackOf({ A: metricAlarm('a'), B: metricAlarm('b'), C: metricAlarm('c', false) }));
  const resolve = (name: string): string => {
    const key = [...graph.alarms.values()].find((a) => a.name === name)?.key;
    if (!key) throw new Error(`unknown alarm ${name}`);
    return key;
  };
  const holds = (rule: string, alarmed: string[]): boolean => {
    const g: AlarmGraph = {
      alarms: new Map([
        ...graph.alarms,
        [
          's/X',
          {
            key: 's/X',
            name: 'x',
            stack: 's',
            composite: true,
            alarmActions: [],
            okActions: [],
            actionsEnabled: true,
            rule: parseRule(rule, resolve),
          },
        ],
      ]),
      metricAlarms: graph.metricAlarms,
    };
    return evaluate(g, new Map(alarmed.map((n) => [resolve(n), 'ALARM' as const]))).get('s/X') === 'ALARM';
  };

  test('ALARM/OK/INSUFFICIENT_DATA, TRUE/FALSE, NOT over AND over OR, parentheses, quoted or bare names', () => {
    expect(holds('ALARM("a")', ['a'])).toBe(true);
    expect(holds('ALARM(a)', [])).toBe(false);
    expect(holds('OK("a")', [])).toBe(true);
    expect(holds('INSUFFICIENT_DATA("a")', ['a'])).toBe(false);
    expect(holds('TRUE AND NOT FALSE', [])).toBe(true);
    // NOT binds tighter than AND, AND tighter than OR.
    expect(holds('NOT ALARM("a") AND ALARM("b")', ['a', 'b'])).toBe(false);
    expect(holds('ALARM("a") OR ALARM("b") AND ALARM("c")', ['a'])).toBe(true);
    expect(holds('(ALARM("a") OR ALARM("b")) AND ALARM("c")', ['a'])).toBe(false);
    expect(holds(' ( ALARM( "a" ) ) ', ['a'])).toBe(true);
  });

  test('malformed rules and unknown alarms are refused, not guessed', () => {
    expect(() => parseRule('ALARM("a"', resolve)).toThrow(/needs \)/);
    expect(() => parseRule('(ALARM("a")', resolve)).toThrow(/missing \)/);
    expect(() => parseRule('ALARM("a") ALARM("b")', resolve)).toThrow(/trailing/);
    expect(() => parseRule('ALARM("a") XOR ALARM("b")', resolve)).toThrow(/unknown word XOR/);
    expect(() => parseRule('ALARM("nope")', resolve)).toThrow(/unknown alarm nope/);
    expect(() => parseRule('AND', resolve)).toThrow(/unexpected AND/);
    expect(() =>
      alarmGraph(stackOf({ X: composite('x', { 'Fn::Join': ['', ['ALARM("', arn('Missing'), '")']] }) })),
    ).toThrow(/s\/Missing, which is no alarm/);
  });

  test('the replaced design (actionless children, one notifying OR composite) silences every pair', () => {
    const old = alarmGraph(
      stackOf({
        A: metricAlarm('a', false),
        B: metricAlarm('b', false),
        C: metricAlarm('c', false),
        Health: composite('health', {
          'Fn::Join': ['', ['ALARM("', arn('A'), '") OR ALARM("', arn('B'), '") OR ALARM("', arn('C'), '")']],
        }),
      }),
    );
    // The first failure notifies (through the composite)...
    const quiet = evaluate(old, new Map());
    const first = evaluate(old, new Map([['s/A', 'ALARM']]));
    expect(notifications(old, quiet, first)).toEqual([
      { alarm: 's/Health', state: 'ALARM', actions: [referenceText('Ref:Topic')] },
    ]);
    // ...every later one, while it is stuck, does not.
    expect(silencedPairs(old)).toHaveLength(3 * 2);
  });

  test('children that notify on their own transitions are never silenced, whatever composites exist', () => {
    const statusOnly: Json = {
      Type: 'AWS::CloudWatch::CompositeAlarm',
      Properties: { AlarmName: 'health', AlarmRule: 'ALARM("a") OR ALARM("b")' },
    };
    const own = alarmGraph(stackOf({ A: metricAlarm('a'), B: metricAlarm('b'), Health: statusOnly }));
    expect(silencedPairs(own)).toEqual([]);
  });

  test('an ActionsSuppressor in ALARM suppresses the composite it guards; ActionsEnabled false never notifies', () => {
    const suppressed = alarmGraph(
      stackOf({
        A: metricAlarm('a', false),
        B: metricAlarm('b', false),
        OnlyB: composite('only-b', 'ALARM("b")', { ActionsSuppressor: 'a' }),
        OnlyA: composite('only-a', 'ALARM("a")', { ActionsEnabled: false }),
      }),
    );
    expect(
      silencedPairs(suppressed).map((p) => [nameOf(suppressed, p.stuck), nameOf(suppressed, p.next)]),
    ).toEqual([
      ['a', 'b'],
      ['b', 'a'],
    ]);
    // B alone notifies through its composite.
    const none = evaluate(suppressed, new Map());
    expect(notifications(suppressed, none, evaluate(suppressed, new Map([['s/B', 'ALARM']])))).toHaveLength(
      1,
    );
  });
});

// ---- the platform's synthesized alarms -----------------------------------------------------------

describe.each(Object.keys(CONFIGS))('%s: every stack, every ordered pair of alarms', (config) => {
  let graph: AlarmGraph;
  let templates: SynthesizedTemplate[];
  beforeAll(() => {
    templates = synthesized(CONFIGS[config] as Json);
    graph = alarmGraph(templates);
  });

  test('every stack has alarms, and each alarm notifies its own stack’s topic on ALARM and OK', () => {
    for (const { stackName } of templates) {
      const own = graph.metricAlarms.filter((k) => graph.alarms.get(k)?.stack === stackName);
      expect({ stackName, alarms: own.length > 5 }).toEqual({ stackName, alarms: true });
    }
    for (const key of graph.metricAlarms) {
      const alarm = graph.alarms.get(key);
      expect({
        alarm: alarm?.name,
        alarm_actions: alarm?.alarmActions.length,
        ok_actions: alarm?.okActions.length,
      }).toEqual({
        alarm: alarm?.name,
        alarm_actions: 1,
        ok_actions: 1,
      });
    }
  });

  test('B going into ALARM while A is stuck in ALARM still notifies, but for the documented exceptions', () => {
    const exceptions = documentedExceptions(readFileSync(DOCS, 'utf8'));
    const silenced = silencedPairs(graph).map((p) => ({
      stuck: nameOf(graph, p.stuck),
      next: nameOf(graph, p.next),
    }));
    const undocumented = silenced.filter(
      (p) => !exceptions.some((e) => e.stuck.test(p.stuck) && e.next.test(p.next)),
    );
    expect(undocumented).toEqual([]);
    // No stale line either: every documented exception still silences a pair of this configuration.
    const stale = exceptions.filter(
      (e) => !silenced.some((p) => e.stuck.test(p.stuck) && e.next.test(p.next)),
    );
    expect(stale.map((e) => e.reason)).toEqual([]);
    // The pairs really were evaluated: n × (n − 1) of them.
    expect(graph.metricAlarms.length).toBeGreaterThan(40);
  });
});

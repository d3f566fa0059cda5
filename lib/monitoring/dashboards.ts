/**
 * The dashboards (docs/operations.md "Dashboards"): one per stack, a status row of the stack's alarms and
 * one graph per alarm (its metric as alarmed, the threshold as a line). The global dashboard adds, per
 * deployment region and for the analytics API, cross-region graphs of the alarms whose metrics have
 * synth-time dimensions (APIs by name, the platform's own metrics), drawn from the same alarm specs.
 */
import { Duration } from 'aws-cdk-lib';
import { AlarmStatusWidget, Dashboard, GraphWidget, Metric, TextWidget } from 'aws-cdk-lib/aws-cloudwatch';
import type { CompositeAlarm, IMetric, IWidget } from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import { policyMetric, policyThreshold } from './alarm-set.js';
import type { AlarmEntry, AlarmSpec } from './alarm-set.js';
import { ALARM_POLICIES } from './thresholds.js';

const COLUMNS = 3;
const WIDGET_WIDTH = 24 / COLUMNS;
const WIDGET_HEIGHT = 6;

export interface DashboardSection {
  readonly title: string;
  readonly widgets: readonly IWidget[];
}

/** A graph of `metrics` with the alarm threshold as a horizontal line. */
function thresholdGraph(title: string, metrics: IMetric[], threshold: number, region?: string): GraphWidget {
  return new GraphWidget({
    title,
    left: metrics,
    leftAnnotations: [{ value: threshold, label: 'alarm threshold' }],
    width: WIDGET_WIDTH,
    height: WIDGET_HEIGHT,
    ...(region !== undefined ? { region } : {}),
  });
}

/** One graph per alarm of the stack, in the stack's region. */
function alarmWidgets(entries: readonly AlarmEntry[]): IWidget[] {
  return entries.map((e) => thresholdGraph(e.spec.title, [e.metric], e.threshold));
}

/**
 * One graph per spec, its metrics in `region`. The dashboard lives in `dashboardRegion`; an expression
 * over another region's metrics is drawn as its inner metrics (e.g. each buffered route's p99), with the
 * threshold line only where the expression is a MAX of them (a ratio's threshold is no line on counts).
 */
export function crossRegionWidgets(
  specs: readonly AlarmSpec[],
  region: string,
  dashboardRegion: string,
): IWidget[] {
  return specs.map((spec) => {
    const policy = ALARM_POLICIES[spec.policy];
    const alarmed = policyMetric(spec.metric, policy);
    const threshold = policyThreshold(policy, spec.timeout, spec.id);
    const title = `${region}: ${spec.title}`;
    if (region === dashboardRegion) return thresholdGraph(title, [alarmed], threshold);
    if (alarmed instanceof Metric)
      return thresholdGraph(title, [alarmed.with({ region })], threshold, region);
    const inner = Object.values(alarmed.usingMetrics).map((m) =>
      m instanceof Metric ? m.with({ region }) : m,
    );
    return alarmed.expression.startsWith('MAX(')
      ? thresholdGraph(title, inner, threshold, region)
      : new GraphWidget({ title, left: inner, width: WIDGET_WIDTH, height: WIDGET_HEIGHT, region });
  });
}

/** A section of the stack's own alarm graphs: the entries before `end` not in an earlier section. */
export interface AlarmSection {
  readonly title: string;
  /** Index into the set's entries where the section ends; absent: at the last entry. */
  readonly end?: number;
}

/**
 * The stack's dashboard `name`: the composite's status row, then under their headings the graphs of
 * `entries` cut into `sections` and the `more` sections (the global dashboard's cross-region graphs).
 */
export function addStackDashboard(
  scope: Construct,
  props: {
    readonly name: string;
    readonly composite: CompositeAlarm;
    readonly entries: readonly AlarmEntry[];
    readonly sections: readonly AlarmSection[];
    readonly more?: readonly DashboardSection[];
  },
): Dashboard {
  const widgets = alarmWidgets(props.entries);
  let start = 0;
  const own = props.sections.map((section): DashboardSection => {
    const end = section.end ?? widgets.length;
    const cut = { title: section.title, widgets: widgets.slice(start, end) };
    start = end;
    return cut;
  });
  const dashboard = new Dashboard(scope, 'Dashboard', {
    dashboardName: props.name,
    defaultInterval: Duration.hours(12),
  });
  dashboard.addWidgets(
    new AlarmStatusWidget({
      title: `${props.name}: alarms (each notifies on its own; the composite is the summary)`,
      alarms: [props.composite, ...props.entries.map((e) => e.alarm)],
      width: 24,
    }),
  );
  for (const section of [...own, ...(props.more ?? [])]) {
    if (section.widgets.length === 0) continue;
    dashboard.addWidgets(new TextWidget({ markdown: `## ${section.title}`, width: 24, height: 1 }));
    for (let i = 0; i < section.widgets.length; i += COLUMNS) {
      dashboard.addWidgets(...section.widgets.slice(i, i + COLUMNS));
    }
  }
  return dashboard;
}

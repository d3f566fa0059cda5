/**
 * What every platform stack's monitoring (global, regional, analytics) is made of: the `<stack>-alarms`
 * topic, the alarm set named after the stack (each alarm notifies the topic on its own transitions), and
 * the stack dashboard led by the status-only composite. The subclasses only choose the alarms and the
 * dashboard sections.
 */
import { Stack } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import type { MonitoringConfig } from '../config.js';
import { AlarmSet } from './alarm-set.js';
import { AlarmTopic } from './alarm-topic.js';
import { addStackDashboard } from './dashboards.js';
import type { AlarmSection, DashboardSection } from './dashboards.js';

export abstract class StackMonitoring extends Construct {
  readonly topic: AlarmTopic;
  readonly alarms: AlarmSet;
  protected readonly stackName: string;

  protected constructor(scope: Construct, id: string, monitoring: MonitoringConfig) {
    super(scope, id);
    this.stackName = Stack.of(this).stackName;
    this.topic = AlarmTopic.forStack(this, this.stackName, monitoring);
    this.alarms = new AlarmSet(this, 'Alarms', this.stackName, this.topic.topic);
  }

  /** Call once every alarm is added: composes them into the status composite and draws the dashboard. */
  protected addDashboard(sections: readonly AlarmSection[], more?: readonly DashboardSection[]): void {
    addStackDashboard(this, {
      name: this.stackName,
      composite: this.alarms.compose(),
      entries: this.alarms.entries,
      sections,
      ...(more ? { more } : {}),
    });
  }
}

/**
 * The stack's alarm topic (docs/operations.md "Alarms and runbook"): CloudWatch alarm actions must be a
 * topic of the alarm's own region, so every stack (global, each regional, analytics) has one, named
 * `<stack>-alarms`, with the same subscriptions from `monitoring.*`.
 *
 * Encrypted with a customer-managed key (rotation on) whose policy lets CloudWatch use it: CloudWatch
 * cannot publish to a topic under the AWS-managed alias/aws/sns key. SSL-only (enforceSSL), and since
 * that replaces the default topic policy, CloudWatch alarms of this account and region are allowed to
 * publish explicitly.
 */
import { CfnOutput, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription, UrlSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { SubscriptionProtocol } from 'aws-cdk-lib/aws-sns';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import type { MonitoringConfig } from '../config.js';

export interface AlarmTopicProps {
  /** `<stack>-alarms`. */
  readonly topicName: string;
  /** `monitoring.alarm_email_addresses`: each must confirm the subscription email. */
  readonly emailAddresses: readonly string[];
  /** `monitoring.alarm_https_endpoints`: each must confirm the SubscriptionConfirmation request. */
  readonly httpsEndpoints: readonly string[];
}

export class AlarmTopic extends Construct {
  readonly topic: Topic;
  readonly key: Key;

  /** The topic of a platform stack: `<stack>-alarms`, subscribed as `monitoring.*` says. */
  static forStack(scope: Construct, stackName: string, monitoring: MonitoringConfig): AlarmTopic {
    return new AlarmTopic(scope, 'Topic', {
      topicName: `${stackName}-alarms`,
      emailAddresses: monitoring.alarmEmailAddresses,
      httpsEndpoints: monitoring.alarmHttpsEndpoints,
    });
  }

  constructor(scope: Construct, id: string, props: AlarmTopicProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const fromThisAccountsAlarms = {
      StringEquals: { 'aws:SourceAccount': stack.account },
      ArnLike: { 'aws:SourceArn': stack.formatArn({ service: 'cloudwatch', resource: 'alarm:*' }) },
    };

    this.key = new Key(this, 'Key', {
      description: `${props.topicName}: encrypts the alarm topic; CloudWatch alarms may use it`,
      enableKeyRotation: true,
      // It encrypts only notifications in flight, nothing at rest worth keeping: deleted with the stack
      // (after KMS's shortest waiting period) instead of piling up retained keys across redeploys.
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(7),
    });
    this.key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsPublishEncrypted',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: { StringEquals: { 'aws:SourceAccount': stack.account } },
      }),
    );

    this.topic = new Topic(this, 'Topic', {
      topicName: props.topicName,
      displayName: props.topicName,
      masterKey: this.key,
      enforceSSL: true,
    });
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: fromThisAccountsAlarms,
      }),
    );

    // On the stack itself, so the output keeps its plain name: subscribe by hand (`aws sns subscribe`).
    new CfnOutput(stack, 'AlarmTopicArn', {
      value: this.topic.topicArn,
      description: 'SNS topic every alarm of the stack notifies',
    });

    const subscriptions = [
      ...props.emailAddresses.map((address) => this.topic.addSubscription(new EmailSubscription(address))),
      ...props.httpsEndpoints.map((url) =>
        this.topic.addSubscription(new UrlSubscription(url, { protocol: SubscriptionProtocol.HTTPS })),
      ),
    ];
    for (const subscription of subscriptions) {
      NagSuppressions.addResourceSuppressions(subscription, [
        {
          id: 'Serverless-SNSRedrivePolicy',
          reason:
            'An alarm notification parked in a queue nobody reads helps no one: the alarm state stays in CloudWatch, ' +
            'every alarm notifies again on its next state change, and failed deliveries show in the topic ' +
            'NumberOfNotificationsFailed metric (SNS retries HTTPS deliveries itself)',
        },
      ]);
    }
  }
}

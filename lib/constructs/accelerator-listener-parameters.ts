/**
 * The accelerator listener ARN as an SSM String parameter in each accelerator region: the weak
 * cross-region reference the regional stacks read (StringParameter.valueForStringParameter, resolved by
 * CloudFormation on every deploy of the reading stack). Unlike a CDK cross-region reference, nothing
 * here blocks removing a region or replacing the listener: the global stack overwrites or deletes the
 * parameter, and a regional stack picks up the new value on its next deploy (docs/operations.md,
 * "Adding and removing a region").
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { AwsCustomResource } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { RemoteStringParameter } from './remote-string-parameter.js';

export interface AcceleratorListenerParametersProps {
  /** `/<project>/accelerator-listener-arn` (lib/names.ts). */
  readonly parameterName: string;
  /** The listener's ARN (a deploy-time value of this stack). */
  readonly listenerArn: string;
  /** Regions that get the parameter: the deployment's accelerator regions. */
  readonly regions: readonly string[];
  /** Project name, for the parameter's description. */
  readonly projectName: string;
}

export class AcceleratorListenerParameters extends Construct {
  /** One writer per region, by region. */
  readonly writers: ReadonlyMap<string, AwsCustomResource>;

  constructor(scope: Construct, id: string, props: AcceleratorListenerParametersProps) {
    super(scope, id);
    const { parameterName } = props;
    const logGroup = new LogGroup(this, 'Logs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const writers = new Map<string, AwsCustomResource>();
    for (const region of props.regions) {
      const parameter = new RemoteStringParameter(this, `Writer-${region}`, {
        region,
        parameterName,
        value: props.listenerArn,
        description: `${props.projectName} accelerator listener (the regional stack's endpoint group)`,
        physicalResourceId: `${region}:${parameterName}`,
        logGroup,
      });
      writers.set(region, parameter.writer);
    }
    this.writers = writers;
  }
}

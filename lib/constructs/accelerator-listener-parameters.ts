/**
 * The accelerator listener ARN as an SSM String parameter in each accelerator region: the weak
 * cross-region reference the regional stacks read (StringParameter.valueForStringParameter, resolved by
 * CloudFormation on every deploy of the reading stack). Unlike a CDK cross-region reference, nothing
 * here blocks removing a region or replacing the listener: the global stack overwrites or deletes the
 * parameter, and a regional stack picks up the new value on its next deploy (docs/operations.md,
 * "Adding and removing a region").
 */
import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { AwsCustomResource, AwsCustomResourcePolicy, PhysicalResourceId } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { suppressAwsCustomResourceFunction } from '../nag-suppressions.js';

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
    const stack = Stack.of(this);
    const { parameterName } = props;
    const logGroup = new LogGroup(this, 'Logs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const writers = new Map<string, AwsCustomResource>();
    for (const region of props.regions) {
      const parameterArn = stack.formatArn({
        service: 'ssm',
        region,
        resource: 'parameter',
        // formatArn adds the `/` between `parameter` and the name.
        resourceName: parameterName.replace(/^\//, ''),
      });
      const put = {
        service: 'SSM',
        action: 'putParameter',
        region,
        parameters: {
          Name: parameterName,
          Value: props.listenerArn,
          Type: 'String',
          Overwrite: true,
          Description: `${props.projectName} accelerator listener (the regional stack's endpoint group)`,
        },
        physicalResourceId: PhysicalResourceId.of(`${region}:${parameterName}`),
      };
      writers.set(
        region,
        new AwsCustomResource(this, `Writer-${region}`, {
          onCreate: put,
          onUpdate: put,
          onDelete: {
            service: 'SSM',
            action: 'deleteParameter',
            region,
            parameters: { Name: parameterName },
            // Already gone (deleted by hand): nothing left to clean up.
            ignoreErrorCodesMatching: 'ParameterNotFound',
          },
          // This parameter in this region, nothing else.
          policy: AwsCustomResourcePolicy.fromStatements([
            new PolicyStatement({
              actions: ['ssm:PutParameter', 'ssm:DeleteParameter'],
              resources: [parameterArn],
            }),
          ]),
          installLatestAwsSdk: false,
          logGroup,
        }),
      );
    }
    this.writers = writers;
    suppressAwsCustomResourceFunction(stack);
  }
}

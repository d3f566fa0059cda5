/**
 * An SSM String parameter written into another region by this stack (an AwsCustomResource: PutParameter on
 * create and update, DeleteParameter on delete), with a policy for that one parameter in that region.
 * CloudFormation cannot create resources in another region; this is how a stack publishes a value a stack
 * elsewhere reads by name (the regional API URL for the aggregator, the accelerator listener ARN for the
 * regional stacks), without a CDK cross-region reference.
 */
import { Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import { AwsCustomResource, AwsCustomResourcePolicy, PhysicalResourceId } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { suppressAwsCustomResourceFunction } from '../nag-suppressions.js';

export interface RemoteStringParameterProps {
  /** Region the parameter lives in. */
  readonly region: string;
  /** `/…` parameter name. */
  readonly parameterName: string;
  /** The value (a deploy-time value of this stack is fine: a change rewrites the parameter). */
  readonly value: string;
  readonly description: string;
  /** Physical id of the custom resource; unique per stack. @default the parameter name */
  readonly physicalResourceId?: string;
  /** Log group of the AwsCustomResource function. */
  readonly logGroup: ILogGroup;
}

export class RemoteStringParameter extends Construct {
  readonly writer: AwsCustomResource;

  constructor(scope: Construct, id: string, props: RemoteStringParameterProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const { region, parameterName } = props;
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
        Value: props.value,
        Type: 'String',
        Overwrite: true,
        Description: props.description,
      },
      physicalResourceId: PhysicalResourceId.of(props.physicalResourceId ?? parameterName),
    };
    // "Default": the custom resource keeps the logical ids it had before this construct wrapped it.
    this.writer = new AwsCustomResource(this, 'Default', {
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
      logGroup: props.logGroup,
    });
    suppressAwsCustomResourceFunction(stack);
  }
}

// The analytics environment of the global API (analytics_environment.enabled): the studio (user pool,
// SageMaker domain) and the `/studio/login` function that opens the caller's user profile. Created
// directly in the stack, so their logical IDs stay `Studio…` and `StudioLogin…`.
import { RemovalPolicy } from 'aws-cdk-lib';
import type { Stack } from 'aws-cdk-lib';
import type { CfnUserPool } from 'aws-cdk-lib/aws-cognito';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { NagSuppressions } from 'cdk-nag';
import type { ApiDefinition } from '../../../contracts/api-routes.js';
import { studioLoginEnvironment } from '../../../contracts/env/studio-login.js';
import { PlatformFunction, routeFunctionTimeout } from '../../constructs/platform-function.js';
import { StudioEnvironment } from '../../constructs/studio-environment.js';

export interface GlobalStudio {
  readonly studio: StudioEnvironment;
  readonly login: PlatformFunction;
}

export function addStudio(
  stack: Stack,
  projectName: string,
  definition: ApiDefinition,
  removalPolicy: RemovalPolicy,
): GlobalStudio {
  const studio = new StudioEnvironment(stack, 'Studio', { projectName });
  // The user pool holds the studio's users: it follows removal_policy like the other data, and a
  // pool deleted with the stack cannot keep deletion protection on.
  if (removalPolicy === RemovalPolicy.DESTROY) {
    studio.userPool.applyRemovalPolicy(removalPolicy);
    (studio.userPool.node.defaultChild as CfnUserPool).deletionProtection = 'INACTIVE';
  }
  const login = new PlatformFunction(stack, 'StudioLogin', {
    entryName: 'studio-login',
    description: `${projectName}: presigned analytics studio login URL for the caller's user profile`,
    timeout: routeFunctionTimeout(definition, 'studio-login'),
    invokedBy: 'api-gateway',
    environment: studioLoginEnvironment({ domainId: studio.domain.attrDomainId }),
  });
  login.addToRolePolicy(
    new PolicyStatement({
      actions: ['sagemaker:CreatePresignedDomainUrl'],
      resources: [
        stack.formatArn({
          service: 'sagemaker',
          resource: 'user-profile',
          resourceName: `${studio.domain.attrDomainId}/*`,
        }),
      ],
    }),
  );
  NagSuppressions.addResourceSuppressions(
    login.role!,
    [
      {
        id: 'AwsSolutions-IAM5',
        reason:
          'Every user profile of the one studio domain: the caller is mapped to their own profile at run time',
        appliesTo: [{ regex: '/^Resource::arn:<AWS::Partition>:sagemaker:.*:user-profile\\/<.*>\\/\\*$/g' }],
      },
    ],
    true,
  );
  return { studio, login };
}

// The global REST API's resource policy: the account's principals may invoke every route; with the
// analytics environment, anyone may reach the studio's GET routes (its Cognito authorizer decides).
import { Aws } from 'aws-cdk-lib';
import { AnyPrincipal, PolicyDocument, PolicyStatement } from 'aws-cdk-lib/aws-iam';

export function globalApiPolicy(analyticsEnvironment: boolean): PolicyDocument {
  return new PolicyDocument({
    statements: [
      new PolicyStatement({
        sid: 'AccountPrincipalsInvokeAllRoutes',
        principals: [new AnyPrincipal()],
        actions: ['execute-api:Invoke'],
        resources: ['execute-api:/*'],
        conditions: { StringEquals: { 'aws:PrincipalAccount': Aws.ACCOUNT_ID } },
      }),
      ...(analyticsEnvironment
        ? [
            new PolicyStatement({
              sid: 'AnyoneInvokesStudioGetRoutes',
              principals: [new AnyPrincipal()],
              actions: ['execute-api:Invoke'],
              resources: ['execute-api:/*/GET/studio/*'],
            }),
          ]
        : []),
    ],
  });
}

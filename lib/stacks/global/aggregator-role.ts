// The aggregator's named role: every regional API's resource policy grants it the aggregate routes by ARN.
// It may discover the regional APIs (the SSM parameters each region publishes in the global region) and
// invoke exactly those routes in every deployment region.
import type { Stack } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { NagSuppressions } from 'cdk-nag';
import { AGGREGATOR_REGIONAL_ROUTES } from '../../../contracts/api-routes.js';
import type { PlatformConfig } from '../../config.js';
import { aggregatorRoleName, regionalApiParameterPath } from '../../names.js';

/** Created in `stack` itself (logical ID `AggregatorRole…`). */
export function addAggregatorRole(stack: Stack, config: PlatformConfig): Role {
  const role = new Role(stack, 'AggregatorRole', {
    // Named: every regional API's resource policy grants this role by ARN.
    roleName: aggregatorRoleName(config),
    assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    description: `${config.projectName} aggregator: calls the aggregate routes of every regional API`,
  });
  const parameterPath = regionalApiParameterPath(config);
  role.addToPolicy(
    new PolicyStatement({
      sid: 'DiscoverRegionalApis',
      actions: ['ssm:GetParametersByPath'],
      resources: [parameterPath, `${parameterPath}/*`].map((path) =>
        stack.formatArn({ service: 'ssm', resource: 'parameter', resourceName: path.slice(1) }),
      ),
    }),
  );
  role.addToPolicy(
    new PolicyStatement({
      sid: 'InvokeRegionalAggregateRoutes',
      actions: ['execute-api:Invoke'],
      // API ids are assigned at deploy time in other regions: any API of the account, only these routes.
      resources: config.regions.flatMap((apiRegion) =>
        AGGREGATOR_REGIONAL_ROUTES.map((route) =>
          stack.formatArn({
            service: 'execute-api',
            region: apiRegion,
            resource: '*',
            resourceName: `${config.stage}/${route.method}${route.path}`,
          }),
        ),
      ),
    }),
  );
  suppressAggregatorWildcards(role);
  return role;
}

function suppressAggregatorWildcards(role: Role): void {
  NagSuppressions.addResourceSuppressions(
    role,
    [
      {
        id: 'AwsSolutions-IAM5',
        reason:
          'Regional API ids are assigned at deploy time in other regions: the grant names the region, account, stage, ' +
          'method and path of each aggregate route and wildcards only the API id; discovery reads the parameters ' +
          'under /<project>/regional-api/ (one per region)',
        // The account is a token when synthesized without credentials, a number under `cdk deploy`.
        appliesTo: [
          {
            regex:
              '/^Resource::arn:<AWS::Partition>:execute-api:[a-z0-9-]+:(<AWS::AccountId>|\\d{12}):\\*\\//g',
          },
          {
            regex:
              '/^Resource::arn:<AWS::Partition>:ssm:[a-z0-9-]+:(<AWS::AccountId>|\\d{12}):parameter\\/.*\\/\\*$/g',
          },
        ],
      },
    ],
    true,
  );
}

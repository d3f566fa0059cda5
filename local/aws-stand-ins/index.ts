/**
 * Loopback stand-ins of the AWS APIs the edge Lambdas call (Secrets Manager, SSM, ELBv2), and real SDK
 * clients pointed at them for any region. The SDK clients sign with the loopback credentials every local
 * stand-in accepts; the stand-ins verify those signatures and serve the signing region's data.
 * CloudFormation (DescribeStacks, what `gco` discovers the APIs from) is started by the CLI's tests with
 * their own credentials; the platform itself does not call CloudFormation.
 */
import { ElasticLoadBalancingV2Client } from '@aws-sdk/client-elastic-load-balancing-v2';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SSMClient } from '@aws-sdk/client-ssm';
import type { AwsClients } from '../../lambda/shared/proxy-wiring.js';
import { partitionOf } from '../../contracts/partition.js';
import { staticCredentialStore } from '../credentials.js';
import { LOCAL_CREDENTIALS } from '../dynamodb.js';
import { startElbv2StandIn, type Elbv2StandIn } from './elbv2.js';
import { startSecretsManagerStandIn, type SecretsManagerStandIn } from './secrets-manager.js';
import { startSsmStandIn, type SsmStandIn } from './ssm.js';

export { startCloudFormationStandIn } from './cloudformation.js';
export type { CloudFormationStandIn } from './cloudformation.js';
export interface AwsStandIns {
  readonly secretsManager: SecretsManagerStandIn;
  readonly ssm: SsmStandIn;
  readonly elbv2: Elbv2StandIn;
  /** The clients a proxy Lambda in `region` uses (AWS_REGION = region). */
  clients(region: string): AwsClients;
  ssmClient(region: string): SSMClient;
  close(): Promise<void>;
}

export async function startAwsStandIns(opts: { accountId: string }): Promise<AwsStandIns> {
  // The loopback SDK credentials act as the functions' roles; the principal is informational only.
  const credentials = staticCredentialStore([
    {
      ...LOCAL_CREDENTIALS,
      principal: {
        arn: `arn:${partitionOf('us-east-1').partition}:iam::${opts.accountId}:role/local-lambda`,
        accountId: opts.accountId,
        userId: 'AROALOCALLAMBDA',
      },
    },
  ]);
  const [secretsManager, ssm, elbv2] = await Promise.all([
    startSecretsManagerStandIn({ accountId: opts.accountId, credentials }),
    startSsmStandIn({ accountId: opts.accountId, credentials }),
    startElbv2StandIn({ accountId: opts.accountId, credentials }),
  ]);
  const created: { destroy(): void }[] = [];
  const track = <T extends { destroy(): void }>(client: T): T => {
    created.push(client);
    return client;
  };
  const common = (region: string, endpoint: string) => ({
    region,
    endpoint,
    credentials: LOCAL_CREDENTIALS,
    maxAttempts: 1,
  });
  return {
    secretsManager,
    ssm,
    elbv2,
    clients: (region) => ({
      secretsManager: track(new SecretsManagerClient(common(region, secretsManager.endpoint))),
      ssm: track(new SSMClient(common(region, ssm.endpoint))),
      elbv2: track(new ElasticLoadBalancingV2Client(common(region, elbv2.endpoint))),
    }),
    ssmClient: (region) => track(new SSMClient(common(region, ssm.endpoint))),
    async close() {
      for (const client of created) client.destroy();
      await Promise.all([secretsManager.close(), ssm.close(), elbv2.close()]);
    },
  };
}

/**
 * The AWS stand-ins the edge Lambdas call, driven by the real SDK clients: Secrets Manager
 * GetSecretValue, SSM Get/Put/GetParametersByPath (with paging), ELBv2 DescribeLoadBalancers (with
 * paging). Data is per signing region, and a request signed with the wrong secret is refused.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { paginateDescribeLoadBalancers } from '@aws-sdk/client-elastic-load-balancing-v2';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { GetParameterCommand, GetParametersByPathCommand, PutParameterCommand } from '@aws-sdk/client-ssm';
import { startAwsStandIns, type AwsStandIns } from '../../../local/aws-stand-ins/index.js';

let aws: AwsStandIns;

beforeAll(async () => {
  aws = await startAwsStandIns({ accountId: '000000000000' });
});
afterAll(() => aws.close());

describe('Secrets Manager', () => {
  test('GetSecretValue by name or ARN, AWSCURRENT only, in the region it was put', async () => {
    const arn = aws.secretsManager.putSecret('us-east-1', 'gco/signing-key', '{"current":"k1"}');
    expect(arn).toMatch(
      /^arn:aws:secretsmanager:us-east-1:000000000000:secret:gco\/signing-key-[0-9a-f]{6}$/,
    );
    const client = aws.clients('us-east-1').secretsManager;
    const byArn = await client.send(new GetSecretValueCommand({ SecretId: arn, VersionStage: 'AWSCURRENT' }));
    expect(byArn).toMatchObject({
      ARN: arn,
      Name: 'gco/signing-key',
      SecretString: '{"current":"k1"}',
      VersionStages: ['AWSCURRENT'],
    });
    expect((await client.send(new GetSecretValueCommand({ SecretId: 'gco/signing-key' }))).ARN).toBe(arn);
    await expect(
      client.send(new GetSecretValueCommand({ SecretId: arn, VersionStage: 'AWSPREVIOUS' })),
    ).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
    await expect(
      aws.clients('eu-west-1').secretsManager.send(new GetSecretValueCommand({ SecretId: arn })),
    ).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
  });

  test('a request signed with the wrong secret key is refused', async () => {
    const { endpoint } = aws.secretsManager;
    const client = new SecretsManagerClient({
      region: 'us-east-1',
      endpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'wrong' },
      maxAttempts: 1,
    });
    await expect(client.send(new GetSecretValueCommand({ SecretId: 'x' }))).rejects.toMatchObject({
      name: 'InvalidSignatureException',
    });
    client.destroy();
  });
});

describe('SSM', () => {
  test('PutParameter versions a parameter; GetParameter reads it; an unknown name is ParameterNotFound', async () => {
    const ssm = aws.clients('us-east-1').ssm;
    expect(
      await ssm.send(new PutParameterCommand({ Name: '/gco/alb-host', Value: 'a.example', Type: 'String' })),
    ).toMatchObject({ Version: 1 });
    await expect(
      ssm.send(new PutParameterCommand({ Name: '/gco/alb-host', Value: 'b.example', Type: 'String' })),
    ).rejects.toMatchObject({
      name: 'ParameterAlreadyExists',
    });
    await ssm.send(
      new PutParameterCommand({ Name: '/gco/alb-host', Value: 'b.example', Type: 'String', Overwrite: true }),
    );
    expect((await ssm.send(new GetParameterCommand({ Name: '/gco/alb-host' }))).Parameter).toMatchObject({
      Name: '/gco/alb-host',
      Value: 'b.example',
      Version: 2,
      Type: 'String',
      ARN: 'arn:aws:ssm:us-east-1:000000000000:parameter/gco/alb-host',
    });
    await expect(
      aws.clients('us-west-2').ssm.send(new GetParameterCommand({ Name: '/gco/alb-host' })),
    ).rejects.toMatchObject({
      name: 'ParameterNotFound',
    });
  });

  test('GetParametersByPath: direct children only unless recursive, paged with NextToken', async () => {
    for (let i = 0; i < 12; i++)
      aws.ssm.putParameter('us-east-2', `/gco/regional-api/r${String(i).padStart(2, '0')}`, `u${i}`);
    aws.ssm.putParameter('us-east-2', '/gco/regional-api/deep/child', 'x');
    const ssm = aws.ssmClient('us-east-2');
    const names: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await ssm.send(
        new GetParametersByPathCommand({ Path: '/gco/regional-api', ...(token ? { NextToken: token } : {}) }),
      );
      names.push(...(page.Parameters ?? []).map((p) => p.Name ?? ''));
      token = page.NextToken;
      pages += 1;
    } while (token);
    expect(pages).toBe(2);
    expect(names).toHaveLength(12);
    expect(names).not.toContain('/gco/regional-api/deep/child');
    const recursive = await ssm.send(
      new GetParametersByPathCommand({ Path: '/gco/regional-api/deep', Recursive: true }),
    );
    expect(recursive.Parameters?.map((p) => p.Value)).toEqual(['x']);
  });
});

describe('ELBv2', () => {
  test('DescribeLoadBalancers pages through the region’s load balancers (what the regional proxy reads)', async () => {
    for (let i = 0; i < 3; i++)
      aws.elbv2.addLoadBalancer('us-east-1', {
        name: `lb-${i}`,
        dnsName: `internal-lb-${i}.us-east-1.elb.amazonaws.com`,
        scheme: 'internal',
      });
    aws.elbv2.addLoadBalancer('us-east-1', {
      name: 'public',
      dnsName: 'public.example',
      scheme: 'internet-facing',
      accountId: '111122223333',
    });
    aws.elbv2.addLoadBalancer('us-west-2', {
      name: 'other-region',
      dnsName: 'o.example',
      scheme: 'internal',
    });
    const seen: { arn?: string; dns?: string; scheme?: string }[] = [];
    let pages = 0;
    for await (const page of paginateDescribeLoadBalancers(
      { client: aws.clients('us-east-1').elbv2 },
      { PageSize: 3 },
    )) {
      pages += 1;
      for (const lb of page.LoadBalancers ?? [])
        seen.push({ arn: lb.LoadBalancerArn, dns: lb.DNSName, scheme: lb.Scheme });
    }
    expect(pages).toBe(2);
    expect(seen.map((s) => s.dns)).toEqual([
      'internal-lb-0.us-east-1.elb.amazonaws.com',
      'internal-lb-1.us-east-1.elb.amazonaws.com',
      'internal-lb-2.us-east-1.elb.amazonaws.com',
      'public.example',
    ]);
    expect(seen[0]?.arn).toMatch(
      /^arn:aws:elasticloadbalancing:us-east-1:000000000000:loadbalancer\/app\/lb-0\/[0-9a-f]{16}$/,
    );
    expect(seen[3]).toMatchObject({
      scheme: 'internet-facing',
      arn: expect.stringContaining(':111122223333:'),
    });
  });
});

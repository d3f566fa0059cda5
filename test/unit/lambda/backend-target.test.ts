import {
  DescribeLoadBalancersCommand,
  ElasticLoadBalancingV2Client,
  type LoadBalancer,
} from '@aws-sdk/client-elastic-load-balancing-v2';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import {
  accountFromArn,
  RegionalTargetResolver,
  targetFactory,
  type RegionalTargetResolverOptions,
} from '../../../lambda/shared/backend-target.js';
import { EdgeHttpError } from '../../../lambda/shared/errors.js';
import { createLocalCa } from '../../../local/tls.js';
import { ACCOUNT, lambdaContext } from '../../support/lambda-context.js';
import { memoryLogger } from './events.js';

const HOST = 'internal-gco-alb-1234567890.us-east-1.elb.amazonaws.com';
const PARAM = '/gco/us-east-1/alb-host';
const ca = createLocalCa();

function lb(over: Partial<LoadBalancer> = {}): LoadBalancer {
  return {
    DNSName: HOST,
    Scheme: 'internal',
    Type: 'application',
    LoadBalancerArn: `arn:aws:elasticloadbalancing:us-east-1:${ACCOUNT}:loadbalancer/app/gco-alb/50dc6c495c0c9188`,
    ...over,
  };
}

function setup(
  balancers: LoadBalancer[] | LoadBalancer[][],
  opts: Partial<RegionalTargetResolverOptions> = {},
) {
  const ssm = new SSMClient({ region: 'us-east-1' });
  const elbv2 = new ElasticLoadBalancingV2Client({ region: 'us-east-1' });
  const ssmMock = mockClient(ssm);
  const elbMock = mockClient(elbv2);
  ssmMock
    .on(GetParameterCommand, { Name: PARAM })
    .resolves({ Parameter: { Name: PARAM, Value: `${HOST.toUpperCase()}.` } });
  const pages = Array.isArray(balancers[0]) ? (balancers as LoadBalancer[][]) : [balancers as LoadBalancer[]];
  pages.forEach((page, i) => {
    elbMock
      .on(DescribeLoadBalancersCommand, i === 0 ? {} : { Marker: `m${i}` })
      .resolves({ LoadBalancers: page, ...(i + 1 < pages.length ? { NextMarker: `m${i + 1}` } : {}) });
  });
  let now = 0;
  const logger = memoryLogger();
  const makeTarget = targetFactory({ caPem: ca.cert, servername: 'backend.gco.gco.internal', port: 443 });
  const resolver = new RegionalTargetResolver({
    ssm,
    elbv2,
    parameterName: PARAM,
    ttlMs: 300_000,
    makeTarget,
    logger,
    now: () => now,
    ...opts,
  });
  return { resolver, ssmMock, elbMock, logger, advance: (ms: number) => (now += ms) };
}

async function refusal(p: Promise<unknown>): Promise<EdgeHttpError> {
  const error = await p.catch((e: unknown) => e);
  if (!(error instanceof EdgeHttpError)) throw new Error(`expected an EdgeHttpError, got ${String(error)}`);
  return error;
}

const ctx = lambdaContext();

test('an internal load balancer of this account is accepted, then cached for the TTL', async () => {
  const { resolver, ssmMock, elbMock, advance } = setup([lb()]);
  const [a, b] = await Promise.all([resolver.resolve(ctx), resolver.resolve(ctx)]);
  expect(a.host).toBe(HOST);
  expect(a.servername).toBe('backend.gco.gco.internal');
  expect(b).toBe(a);
  expect(ssmMock.commandCalls(GetParameterCommand)).toHaveLength(1);
  advance(299_000);
  await resolver.resolve(ctx);
  expect(elbMock.commandCalls(DescribeLoadBalancersCommand)).toHaveLength(1);
  advance(2_000);
  const again = await resolver.resolve(ctx);
  expect(ssmMock.commandCalls(GetParameterCommand)).toHaveLength(2);
  expect(again.agent).toBe(a.agent); // same host, same keep-alive pool
  a.agent.destroy();
});

test('load balancers are paged through to find the DNS name', async () => {
  const other = lb({ DNSName: 'internal-other.us-east-1.elb.amazonaws.com' });
  const { resolver, elbMock } = setup([[other], [other, lb()]]);
  expect((await resolver.resolve(ctx)).host).toBe(HOST);
  expect(elbMock.commandCalls(DescribeLoadBalancersCommand)).toHaveLength(2);
});

test.each([
  ['an internet-facing load balancer', [lb({ Scheme: 'internet-facing' })], 'alb_not_internal'],
  [
    "another account's load balancer",
    [lb({ LoadBalancerArn: 'arn:aws:elasticloadbalancing:us-east-1:999999999999:loadbalancer/app/x/1' })],
    'alb_foreign_account',
  ],
  [
    'a host no load balancer of the account has',
    [lb({ DNSName: 'internal-x.elb.amazonaws.com' })],
    'alb_not_found',
  ],
])('%s is refused (500, logged)', async (_name, balancers, reason) => {
  const { resolver, logger } = setup(balancers);
  const error = await refusal(resolver.resolve(ctx));
  expect([error.statusCode, error.reason]).toEqual([500, reason]);
  expect(error.message).toBe('Internal server error');
  expect(logger.lines).toEqual([
    expect.objectContaining({ level: 'error', fields: expect.objectContaining({ reason }) }),
  ]);
});

test('the parameter must hold a host name', async () => {
  const { resolver, ssmMock } = setup([lb()]);
  ssmMock.on(GetParameterCommand).resolves({ Parameter: { Value: 'https://evil.example.com/x' } });
  expect((await refusal(resolver.resolve(ctx))).reason).toBe('alb_parameter_invalid');
});

test('the owner defaults to the function ARN account; ACCOUNT_ID overrides it; neither → refused', async () => {
  const explicit = setup([lb()], { accountId: '999999999999' });
  expect((await refusal(explicit.resolver.resolve(ctx))).reason).toBe('alb_foreign_account');
  const none = setup([lb()]);
  expect((await refusal(none.resolver.resolve({}))).reason).toBe('account_unknown');
});

test('an SSM failure is a 500 remembered briefly, so a broken setup does not hammer the APIs', async () => {
  const { resolver, ssmMock, advance } = setup([lb()], { failureRetryMs: 5_000 });
  ssmMock.on(GetParameterCommand).rejects(new Error('AccessDeniedException'));
  expect((await refusal(resolver.resolve(ctx))).reason).toBe('alb_lookup_failed');
  await refusal(resolver.resolve(ctx));
  expect(ssmMock.commandCalls(GetParameterCommand)).toHaveLength(1);
  advance(5_001);
  ssmMock.on(GetParameterCommand).resolves({ Parameter: { Value: HOST } });
  expect((await resolver.resolve(ctx)).host).toBe(HOST);
});

test('accountFromArn reads any partition and refuses malformed ARNs', () => {
  expect(accountFromArn(`arn:aws-cn:lambda:cn-north-1:${ACCOUNT}:function:f`)).toBe(ACCOUNT);
  expect(
    accountFromArn(`arn:aws-us-gov:elasticloadbalancing:us-gov-west-1:${ACCOUNT}:loadbalancer/app/a/b`),
  ).toBe(ACCOUNT);
  expect(accountFromArn('arn:aws:lambda:us-east-1::function:f')).toBeUndefined();
  expect(accountFromArn('not-an-arn')).toBeUndefined();
  expect(accountFromArn(undefined)).toBeUndefined();
});

import { DescribeSpotPriceHistoryCommand, EC2Client } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import {
  Ec2SpotPriceSource,
  formatPrice,
  spotWaitReason,
} from '../../../cluster/manifest-processor/src/queue/spot-prices.js';

const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };

describe('Ec2SpotPriceSource', () => {
  const client = new EC2Client({ region: 'us-east-1', credentials });
  const ec2 = mockClient(client);
  let now = 1_000_000;
  const source = (cacheMs = 60_000) =>
    new Ec2SpotPriceSource({ clientFor: () => client, cacheMs, now: () => now });
  afterEach(() => ec2.reset());
  afterAll(() => {
    ec2.restore();
    client.destroy();
  });

  test('the lowest of each zone’s latest price, across pages', async () => {
    ec2
      .on(DescribeSpotPriceHistoryCommand)
      .resolvesOnce({
        SpotPriceHistory: [
          { AvailabilityZone: 'us-east-1a', SpotPrice: '0.300000', Timestamp: new Date(1000) },
          { AvailabilityZone: 'us-east-1a', SpotPrice: '0.900000', Timestamp: new Date(2000) },
          { AvailabilityZone: 'us-east-1b', SpotPrice: '0.500000', Timestamp: new Date(1500) },
        ],
        NextToken: 'more',
      })
      .resolvesOnce({
        SpotPriceHistory: [{ AvailabilityZone: 'us-east-1c', SpotPrice: 'oops', Timestamp: new Date(3000) }],
      });
    // us-east-1a now costs 0.90 (its latest entry), so the cheapest zone is us-east-1b.
    expect(await source().currentPrice('us-east-1', 'g5.xlarge')).toBe(0.5);
    const calls = ec2.commandCalls(DescribeSpotPriceHistoryCommand);
    expect(calls).toHaveLength(2);
    expect(calls[1]?.args[0].input.NextToken).toBe('more');
    expect(calls[0]?.args[0].input).toMatchObject({
      InstanceTypes: ['g5.xlarge'],
      ProductDescriptions: ['Linux/UNIX', 'Linux/UNIX (Amazon VPC)'],
      StartTime: new Date(now),
    });
  });

  test('no history is no price', async () => {
    ec2.on(DescribeSpotPriceHistoryCommand).resolves({ SpotPriceHistory: [] });
    expect(await source().currentPrice('us-east-1', 'x1.none')).toBeUndefined();
  });

  test('prices are cached for cacheMs; failures are not cached', async () => {
    ec2
      .on(DescribeSpotPriceHistoryCommand)
      .resolves({ SpotPriceHistory: [{ AvailabilityZone: 'a', SpotPrice: '0.1' }] });
    const prices = source(60_000);
    await prices.currentPrice('us-east-1', 'm5.large');
    await prices.currentPrice('us-east-1', 'm5.large');
    expect(ec2.commandCalls(DescribeSpotPriceHistoryCommand)).toHaveLength(1);
    now += 60_000;
    await prices.currentPrice('us-east-1', 'm5.large');
    expect(ec2.commandCalls(DescribeSpotPriceHistoryCommand)).toHaveLength(2);

    ec2.reset();
    ec2
      .on(DescribeSpotPriceHistoryCommand)
      .rejectsOnce(new Error('Throttling'))
      .resolves({
        SpotPriceHistory: [{ AvailabilityZone: 'a', SpotPrice: '0.2' }],
      });
    await expect(prices.currentPrice('us-east-1', 'c5.large')).rejects.toThrow('Throttling');
    expect(await prices.currentPrice('us-east-1', 'c5.large')).toBe(0.2);
  });

  test('one client per region by default', () => {
    const own = new Ec2SpotPriceSource();
    expect(() => own.destroy()).not.toThrow();
  });
});

describe('wait reasons', () => {
  test('prices print with two to six decimals', () => {
    expect(formatPrice(0.4)).toBe('0.40');
    expect(formatPrice(0.52)).toBe('0.52');
    expect(formatPrice(1.234567)).toBe('1.234567');
    expect(formatPrice(3)).toBe('3.00');
  });

  test('the reason names price, maximum, type and region', () => {
    expect(spotWaitReason(0.52, 0.4, 'g5.xlarge', 'us-east-1')).toBe(
      'spot price 0.52 > max 0.40 for g5.xlarge in us-east-1',
    );
    expect(spotWaitReason(undefined, 0.4, 'g5.xlarge', 'us-east-1')).toBe(
      'no spot price is available for g5.xlarge in us-east-1',
    );
  });
});

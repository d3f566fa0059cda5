import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { AWS_CLIENT_DEFAULTS, awsClientConfig } from '../../../contracts/runtime/aws-clients.js';

describe('awsClientConfig', () => {
  test('bounded timeouts, standard retries and a user agent naming the component', async () => {
    const config = awsClientConfig({ component: 'inference-proxy', region: 'us-east-2' });
    expect(config.requestHandler).toBeInstanceOf(NodeHttpHandler);
    expect(config.maxAttempts).toBe(AWS_CLIENT_DEFAULTS.maxAttempts);
    expect(config.customUserAgent).toBe('gco-platform/inference-proxy');
    const client = new DynamoDBClient(config);
    await expect(client.config.region()).resolves.toBe('us-east-2');
    await expect(client.config.maxAttempts()).resolves.toBe(3);
    client.destroy();
  });

  test('an endpoint and a region only when given', () => {
    expect(awsClientConfig({ component: 'x' })).not.toHaveProperty('region');
    expect(awsClientConfig({ component: 'x' })).not.toHaveProperty('endpoint');
    expect(awsClientConfig({ component: 'x', endpoint: 'http://127.0.0.1:1' }).endpoint).toBe(
      'http://127.0.0.1:1',
    );
  });
});

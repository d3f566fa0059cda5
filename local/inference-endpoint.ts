/**
 * Registers an inference endpoint in the central endpoint store (TABLES.inferenceEndpoints) in the
 * record format the inference-proxy reads (docs/inference-proxy.md): running in the given regions,
 * served by `service:port` over TLS, with its serving-path allowlist.
 */
import { PutItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';

export interface EndpointRegistration {
  name: string;
  regions: readonly string[];
  /** Host the inference-proxy connects to (a Kubernetes service name in a cluster; 127.0.0.1 locally). */
  service: string;
  port: number;
  servingPaths: readonly string[];
  healthPath?: string;
}

export async function registerInferenceEndpoint(
  client: DynamoDBClient,
  tableName: string,
  endpoint: EndpointRegistration,
): Promise<void> {
  const regions: Record<string, AttributeValue> = {};
  for (const region of endpoint.regions) regions[region] = { M: { state: { S: 'running' } } };
  await client.send(
    new PutItemCommand({
      TableName: tableName,
      Item: {
        endpoint_name: { S: endpoint.name },
        regions: { M: regions },
        service: { S: endpoint.service },
        port: { N: String(endpoint.port) },
        serving_paths: { L: endpoint.servingPaths.map((p) => ({ S: p })) },
        ...(endpoint.healthPath !== undefined ? { health_path: { S: endpoint.healthPath } } : {}),
        updated_at: { S: new Date().toISOString() },
      },
    }),
  );
}

/**
 * Registers an inference endpoint in the central endpoint store (TABLES.inferenceEndpoints) in the
 * record format the inference-proxy reads (docs/inference-proxy.md): running in the given regions,
 * served by `service:port` over TLS, with its serving-path allowlist.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../cluster/shared/dynamo.js';

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
  await documentClient(client).send(
    new PutCommand({
      TableName: tableName,
      Item: {
        endpoint_name: endpoint.name,
        regions: Object.fromEntries(endpoint.regions.map((region) => [region, { state: 'running' }])),
        service: endpoint.service,
        port: endpoint.port,
        serving_paths: [...endpoint.servingPaths],
        ...(endpoint.healthPath !== undefined ? { health_path: endpoint.healthPath } : {}),
        updated_at: new Date().toISOString(),
      },
    }),
  );
}

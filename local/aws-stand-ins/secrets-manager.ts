/**
 * Secrets Manager stand-in (JSON 1.1): GetSecretValue — what the edge proxies call to read the envelope
 * signing keys. Secrets are per region (a replicated secret is seeded into every region), found by name
 * or ARN; only the AWSCURRENT version exists.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { partitionOf } from '../../contracts/partition.js';
import type { CredentialStore } from '../sigv4-verifier.js';
import { AwsServiceError, startStandInServer, type StandInServer } from './protocol.js';

interface StoredSecret {
  arn: string;
  name: string;
  value: string;
  versionId: string;
  createdDate: number;
}

export interface SecretsManagerStandIn extends StandInServer {
  /** Creates or replaces a secret's current value in a region; returns its ARN. */
  putSecret(region: string, name: string, value: string): string;
}

export async function startSecretsManagerStandIn(opts: {
  accountId: string;
  credentials: CredentialStore;
}): Promise<SecretsManagerStandIn> {
  const secrets = new Map<string, Map<string, StoredSecret>>();
  const regionSecrets = (region: string) => {
    let m = secrets.get(region);
    if (m === undefined) secrets.set(region, (m = new Map<string, StoredSecret>()));
    return m;
  };
  const find = (region: string, id: string): StoredSecret | undefined => {
    const m = regionSecrets(region);
    return m.get(id) ?? [...m.values()].find((s) => s.arn === id);
  };

  const server = await startStandInServer({
    service: 'secretsmanager',
    credentials: opts.credentials,
    protocol: {
      kind: 'json',
      targetPrefix: 'secretsmanager',
      operations: {
        GetSecretValue: (input, ctx) => {
          const id = input.SecretId;
          if (typeof id !== 'string' || id === '') {
            throw new AwsServiceError('InvalidParameterException', 'SecretId is required');
          }
          const secret = find(ctx.region, id);
          if (secret === undefined) {
            throw new AwsServiceError(
              'ResourceNotFoundException',
              "Secrets Manager can't find the specified secret.",
            );
          }
          const stage = input.VersionStage;
          const version = input.VersionId;
          if (
            (stage !== undefined && stage !== 'AWSCURRENT') ||
            (version !== undefined && version !== secret.versionId)
          ) {
            throw new AwsServiceError(
              'ResourceNotFoundException',
              "Secrets Manager can't find the specified secret value for staging label or version.",
            );
          }
          return {
            ARN: secret.arn,
            Name: secret.name,
            VersionId: secret.versionId,
            SecretString: secret.value,
            VersionStages: ['AWSCURRENT'],
            CreatedDate: secret.createdDate,
          };
        },
      },
    },
  });

  return {
    ...server,
    putSecret(region, name, value) {
      const existing = regionSecrets(region).get(name);
      // Real ARNs end in a 6-character random suffix.
      const arn =
        existing?.arn ??
        `arn:${partitionOf(region).partition}:secretsmanager:${region}:${opts.accountId}:secret:${name}-${randomBytes(3).toString('hex')}`;
      regionSecrets(region).set(name, {
        arn,
        name,
        value,
        versionId: randomUUID(),
        createdDate: Date.now() / 1000,
      });
      return arn;
    },
  };
}

/**
 * A small model of one Secrets Manager secret (versions and staging labels) behind aws-sdk-client-mock,
 * so rotation and key-source tests run against Secrets Manager's semantics rather than canned answers.
 */
import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
  UpdateSecretVersionStageCommand,
  type DescribeSecretCommandInput,
  type GetSecretValueCommandInput,
  type PutSecretValueCommandInput,
  type UpdateSecretVersionStageCommandInput,
} from '@aws-sdk/client-secrets-manager';
import { mockClient, type AwsClientStub } from 'aws-sdk-client-mock';

interface Version {
  stages: Set<string>;
  value?: string;
}

export const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:111122223333:secret:gco-signing-AbCdEf';

export class FakeSecret {
  readonly client = new SecretsManagerClient({ region: 'us-east-1' });
  readonly mock: AwsClientStub<SecretsManagerClient>;
  readonly versions = new Map<string, Version>();
  rotationEnabled = true;
  getCalls = 0;

  constructor(initial: string, initialVersion = 'v-initial') {
    this.versions.set(initialVersion, { stages: new Set(['AWSCURRENT']), value: initial });
    this.mock = mockClient(this.client);
    this.mock
      .on(DescribeSecretCommand)
      .callsFake((input: DescribeSecretCommandInput) => this.describe(input));
    this.mock.on(GetSecretValueCommand).callsFake((input: GetSecretValueCommandInput) => this.get(input));
    this.mock.on(PutSecretValueCommand).callsFake((input: PutSecretValueCommandInput) => this.put(input));
    this.mock
      .on(UpdateSecretVersionStageCommand)
      .callsFake((input: UpdateSecretVersionStageCommandInput) => this.updateStage(input));
  }

  /** What RotateSecret does before invoking the Lambda: a new version id staged AWSPENDING, no value. */
  startRotation(token: string): void {
    this.moveStage('AWSPENDING', token);
  }

  /** Writes a new AWSCURRENT value directly (manual rotation). */
  setCurrent(value: string, versionId: string): void {
    this.versions.set(versionId, { stages: new Set(), value });
    this.moveStage('AWSCURRENT', versionId);
  }

  current(): string | undefined {
    return [...this.versions.values()].find((v) => v.stages.has('AWSCURRENT'))?.value;
  }

  stagesOf(versionId: string): string[] {
    return [...(this.versions.get(versionId)?.stages ?? [])].sort();
  }

  private notFound(message: string): ResourceNotFoundException {
    return new ResourceNotFoundException({ message, $metadata: {} });
  }

  private describe(input: DescribeSecretCommandInput) {
    if (input.SecretId !== SECRET_ARN) throw this.notFound('no such secret');
    return {
      ARN: SECRET_ARN,
      RotationEnabled: this.rotationEnabled,
      VersionIdsToStages: Object.fromEntries([...this.versions].map(([id, v]) => [id, [...v.stages]])),
    };
  }

  private get(input: GetSecretValueCommandInput) {
    this.getCalls += 1;
    if (input.SecretId !== SECRET_ARN) throw this.notFound('no such secret');
    const stage = input.VersionStage ?? 'AWSCURRENT';
    const match = [...this.versions].find(
      ([id, v]) => (input.VersionId === undefined || id === input.VersionId) && v.stages.has(stage),
    );
    if (match === undefined || match[1].value === undefined) {
      throw this.notFound("Secrets Manager can't find the specified secret value");
    }
    return {
      ARN: SECRET_ARN,
      VersionId: match[0],
      SecretString: match[1].value,
      VersionStages: [...match[1].stages],
    };
  }

  private put(input: PutSecretValueCommandInput) {
    const id = input.ClientRequestToken ?? `v-${this.versions.size}`;
    const existing = this.versions.get(id);
    if (existing?.value !== undefined && existing.value !== input.SecretString) {
      throw new Error('ResourceExistsException: version exists with a different value');
    }
    this.versions.set(id, { stages: existing?.stages ?? new Set(), value: input.SecretString ?? '' });
    for (const stage of input.VersionStages ?? ['AWSCURRENT']) this.moveStage(stage, id);
    return { ARN: SECRET_ARN, VersionId: id };
  }

  private updateStage(input: UpdateSecretVersionStageCommandInput) {
    const stage = input.VersionStage ?? '';
    const holder = [...this.versions].find(([, v]) => v.stages.has(stage))?.[0];
    if (holder !== undefined && holder !== input.MoveToVersionId && holder !== input.RemoveFromVersionId) {
      throw new Error('InvalidParameterException: RemoveFromVersionId must name the current holder');
    }
    if (input.MoveToVersionId !== undefined) {
      if (stage === 'AWSCURRENT' && holder !== undefined && holder !== input.MoveToVersionId) {
        // Secrets Manager keeps the last good version as AWSPREVIOUS.
        this.moveStage('AWSPREVIOUS', holder);
      }
      this.moveStage(stage, input.MoveToVersionId);
    }
    return { ARN: SECRET_ARN };
  }

  private moveStage(stage: string, to: string): void {
    for (const v of this.versions.values()) v.stages.delete(stage);
    const target = this.versions.get(to) ?? { stages: new Set<string>() };
    target.stages.add(stage);
    this.versions.set(to, target);
  }
}

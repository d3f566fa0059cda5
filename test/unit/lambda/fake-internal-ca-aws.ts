/**
 * Secrets Manager and ACM for the internal-CA handler tests, behind aws-sdk-client-mock (no local server
 * exists for either): secrets live in a map (a missing one is ResourceNotFoundException, writes replace the
 * value), and ACM ImportCertificate answers the ARN it re-imports into, or `newCertificateArn`.
 */
import { ACMClient, ImportCertificateCommand } from '@aws-sdk/client-acm';
import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { mockClient, type AwsClientStub } from 'aws-sdk-client-mock';
import type { CertificateRenewalEvent } from '../../../contracts/internal-ca.js';

/** The daily schedule's event that renews one certificate: its ARN, the CA and key-pair secrets, its host. */
export function renewalEvent(
  certificateArn: string,
  caSecretId: string,
  keyPairSecretId: string,
  host: string,
): CertificateRenewalEvent {
  return {
    Kind: 'CertificateRenewal',
    CertificateArn: certificateArn,
    CaSecretId: caSecretId,
    KeyPairSecretId: keyPairSecretId,
    DnsNames: [host],
  };
}

export interface InternalCaAws {
  readonly secrets: AwsClientStub<SecretsManagerClient>;
  readonly acm: AwsClientStub<ACMClient>;
  /** Secret values by id, as the handler left them. */
  readonly values: Map<string, string>;
  /** The clients to hand to createHandler. */
  readonly clients: { secrets: SecretsManagerClient; acm: ACMClient };
}

export function fakeInternalCaAws(stored: Record<string, string>, newCertificateArn: string): InternalCaAws {
  const secrets = mockClient(SecretsManagerClient);
  const acm = mockClient(ACMClient);
  const values = new Map(Object.entries(stored));
  secrets.on(GetSecretValueCommand).callsFake((input: { SecretId: string }) => {
    const value = values.get(input.SecretId);
    if (value === undefined) throw new ResourceNotFoundException({ message: 'not found', $metadata: {} });
    return { SecretString: value };
  });
  secrets.on(PutSecretValueCommand).callsFake((input: { SecretId: string; SecretString: string }) => {
    values.set(input.SecretId, input.SecretString);
    return {};
  });
  acm.on(ImportCertificateCommand).callsFake((input: { CertificateArn?: string }) => ({
    CertificateArn: input.CertificateArn ?? newCertificateArn,
  }));
  return {
    secrets,
    acm,
    values,
    clients: { secrets: new SecretsManagerClient({}), acm: new ACMClient({}) },
  };
}

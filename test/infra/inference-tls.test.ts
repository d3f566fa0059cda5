/**
 * The model endpoints' certificate (docs/regional-stack.md, docs/inference-reconciler.md "TLS sidecar"):
 * a third InternalCertificate for `*.gco-inference.svc.cluster.local`, its key-pair secret handed to
 * manifest-processor as INFERENCE_TLS_KEY_PAIR_SECRET_ARN and readable by manifest-processor's role only.
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import { Template } from 'aws-cdk-lib/assertions';
import { buildForAssertions, regionalStackOf } from '../support/platform-app.js';

type Json = Record<string, unknown>;
interface Resource {
  Type: string;
  Properties: Json;
}

const resources = (template: Template, type: string): [string, Resource][] =>
  Object.entries(template.findResources(type) as Record<string, Resource>);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

describe('inference TLS certificate (regional stack)', () => {
  let template: Template;
  let keyPairId: string;

  beforeAll(() => {
    template = Template.fromStack(regionalStackOf(buildForAssertions({}), 'us-east-1'));
    const ids = resources(template, 'AWS::SecretsManager::Secret')
      .map(([id]) => id)
      .filter((id) => id.startsWith('InferenceCertificateKeyPair'));
    expect(ids).toHaveLength(1);
    keyPairId = ids[0]!;
  });

  test('is issued by the internal CA for the wildcard of the gco-inference Services, with its own metric', () => {
    const certificates = resources(template, 'Custom::InternalCa')
      .map(([, r]) => r.Properties)
      .filter((p) => p.Kind === 'Certificate');
    expect(certificates).toHaveLength(3);
    const inference = certificates.filter((p) => p.Certificate === 'inference');
    expect(inference).toEqual([
      expect.objectContaining({
        DnsNames: ['*.gco-inference.svc.cluster.local'],
        KeyPairSecretId: { Ref: keyPairId },
        Project: 'gco',
      }),
    ]);
    // Renewed daily in place, like the other two.
    const renewals = resources(template, 'AWS::Events::Rule')
      .flatMap(([, rule]) => (rule.Properties.Targets as { Input?: unknown }[] | undefined) ?? [])
      .map((target) => JSON.stringify(target.Input))
      .filter((input) => input.includes('CertificateRenewal') && input.includes('\\"inference\\"'));
    expect(renewals).toHaveLength(1);
  });

  test('manifest-processor gets the key-pair secret ARN as INFERENCE_TLS_KEY_PAIR_SECRET_ARN', () => {
    const manifests = resources(template, 'Custom::AWSCDK-EKS-KubernetesResource')
      .map(([, r]) => r.Properties.Manifest)
      .map((m) => (m as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join']?.[1] ?? [m]);
    const refsAfterName = manifests.flatMap((parts) =>
      parts.flatMap((part, i) =>
        typeof part === 'string' && part.includes('INFERENCE_TLS_KEY_PAIR_SECRET_ARN') ? [parts[i + 1]] : [],
      ),
    );
    expect(refsAfterName).toEqual([{ Ref: keyPairId }]);
  });

  test('only manifest-processor (and the issuing handler) may read the key pair, on that secret alone', () => {
    const policies = resources(template, 'AWS::IAM::Policy').map(([, p]) => p.Properties);
    const naming = policies.flatMap((p) =>
      (p.PolicyDocument as { Statement: Json[] }).Statement.filter((s) =>
        list(s.Resource).some((r) => JSON.stringify(r) === JSON.stringify({ Ref: keyPairId })),
      ).map((s) => ({ roles: list(p.Roles).map((r) => (r as { Ref: string }).Ref), statement: s })),
    );
    const processor = naming.filter((n) =>
      n.roles.some((r) => r.startsWith('ServicesManifestProcessorRole')),
    );
    expect(processor).toEqual([
      {
        roles: [expect.stringMatching(/^ServicesManifestProcessorRole/)],
        statement: {
          Effect: 'Allow',
          Action: ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'],
          Resource: { Ref: keyPairId },
        },
      },
    ]);
    const others = naming.filter((n) => !n.roles.some((r) => r.startsWith('ServicesManifestProcessorRole')));
    for (const other of others) {
      expect(other.roles).toEqual([expect.stringMatching(/^InternalCaProviderHandler/)]);
    }
    for (const service of ['HealthMonitor', 'InferenceProxy', 'CostMonitor']) {
      expect(naming.some((n) => n.roles.some((r) => r.startsWith(`Services${service}Role`)))).toBe(false);
    }
  });
});

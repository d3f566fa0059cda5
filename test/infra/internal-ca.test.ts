/**
 * The internal-CA function's ACM permissions (lib/constructs/internal-ca.ts): only certificates it
 * imported, told by the tag `gco:internal-ca` = project — a new import must carry the tag
 * (`aws:RequestTag`, `aws:TagKeys`), a re-import, describe or delete needs it on the certificate
 * (`aws:ResourceTag`). Condition keys per action: Service Authorization Reference for ACM,
 * https://docs.aws.amazon.com/service-authorization/latest/reference/list_awscertificatemanager.html.
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import type { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { INTERNAL_CA_TAG_KEY } from '../../contracts/internal-ca.js';
import type { PlatformApp } from '../../lib/app-builder.js';
import { buildForAssertions, regionalStackOf } from '../support/platform-app.js';

type Json = Record<string, unknown>;
interface Statement {
  Sid?: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Json;
}

/** The ACM statements of the internal-CA handler's role in `stack`. */
function acmStatements(stack: Stack): Statement[] {
  const template = Template.fromStack(stack).toJSON() as {
    Resources: Record<string, { Type: string; Properties: Json }>;
  };
  const handler = Object.entries(template.Resources).find(
    ([id, r]) => r.Type === 'AWS::Lambda::Function' && id.startsWith('InternalCaProviderHandler'),
  );
  if (!handler) throw new Error(`${stack.stackName}: no internal-CA handler`);
  const roleId = (handler[1].Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  return Object.values(template.Resources)
    .filter(
      (r) =>
        r.Type === 'AWS::IAM::Policy' &&
        (r.Properties.Roles as { Ref?: string }[]).some((ref) => ref.Ref === roleId),
    )
    .flatMap((r) => (r.Properties.PolicyDocument as { Statement: Statement[] }).Statement)
    .filter((s) => [s.Action].flat().some((a) => a.startsWith('acm:')));
}

const certificatesIn = (region: string): Json => ({
  'Fn::Join': [
    '',
    ['arn:', { Ref: 'AWS::Partition' }, `:acm:${region}:`, { Ref: 'AWS::AccountId' }, ':certificate/*'],
  ],
});

describe.each([
  ['gco', {}],
  ['acme', { project_name: 'acme' }],
])('project %s', (project, context) => {
  let built: PlatformApp;
  beforeAll(() => {
    built = buildForAssertions(context, { nag: false });
  });

  test('regional stack: a new import must carry the project tag; everything else needs it on the certificate', () => {
    const statements = acmStatements(regionalStackOf(built, 'us-east-1'));
    expect(statements).toEqual([
      {
        Sid: 'ImportNewCertificatesTagged',
        Effect: 'Allow',
        Action: ['acm:ImportCertificate', 'acm:AddTagsToCertificate'],
        Resource: certificatesIn('us-east-1'),
        Condition: {
          StringEquals: { [`aws:RequestTag/${INTERNAL_CA_TAG_KEY}`]: project },
          'ForAllValues:StringEquals': { 'aws:TagKeys': [INTERNAL_CA_TAG_KEY] },
        },
      },
      {
        Sid: 'ManageOwnCertificates',
        Effect: 'Allow',
        Action: ['acm:ImportCertificate', 'acm:DescribeCertificate', 'acm:DeleteCertificate'],
        Resource: certificatesIn('us-east-1'),
        Condition: { StringEquals: { [`aws:ResourceTag/${INTERNAL_CA_TAG_KEY}`]: project } },
      },
    ]);
    // No ACM action anywhere without one of the two tag conditions.
    expect(statements.filter((s) => s.Condition === undefined)).toEqual([]);
  });

  test('global stack: the CA handler has no ACM permission at all', () => {
    expect(acmStatements(built.globalStack)).toEqual([]);
  });
});

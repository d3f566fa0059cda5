// Who is cluster admin after `cdk deploy`: the kubectl handler's role (aws-eks-v2 adds it to apply the
// manifests) and every principal of eks.admin_principal_arns, through EKS access entries.
import { describe, expect, test } from '@jest/globals';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { buildApp } from '../../lib/app-builder.js';
import { assemblyOutdir } from '../support/suite-temp-dir.js';

const ADMIN_POLICY = {
  PolicyArn: {
    'Fn::Join': [
      '',
      ['arn:', { Ref: 'AWS::Partition' }, ':eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy'],
    ],
  },
  AccessScope: { Type: 'cluster' },
};

function regionalTemplate(context: Record<string, unknown>): Template {
  const built = buildApp(context, {
    analyticsReporting: false,
    outdir: assemblyOutdir(),
    context: { 'aws:cdk:bundling-stacks': [] },
  });
  const stack = built.regionalStacks.get('us-east-1');
  if (!stack) throw new Error('no us-east-1 stack');
  return Template.fromStack(stack);
}

test('the cluster authenticates with access entries (authentication mode API)', () => {
  regionalTemplate({}).hasResourceProperties('AWS::EKS::Cluster', {
    AccessConfig: { AuthenticationMode: 'API' },
  });
});

describe('default: no admin principals configured', () => {
  const template = regionalTemplate({});

  test('only the kubectl handler role has an access entry', () => {
    template.resourceCountIs('AWS::EKS::AccessEntry', 1);
    template.hasResourceProperties('AWS::EKS::AccessEntry', {
      PrincipalArn: {
        'Fn::GetAtt': [Match.stringLikeRegexp('^EksClusterKubectlProviderHandlerServiceRole'), 'Arn'],
      },
      AccessPolicies: [ADMIN_POLICY],
    });
  });
});

describe('two admin principals configured', () => {
  const admins = [
    'arn:aws:iam::123456789012:role/PlatformAdmins',
    'arn:aws:iam::123456789012:user/ops/alice',
  ];
  const template = regionalTemplate({ eks: { admin_principal_arns: admins } });

  test('each gets a cluster-scoped AmazonEKSClusterAdminPolicy access entry', () => {
    template.resourceCountIs('AWS::EKS::AccessEntry', 3);
    for (const principal of admins) {
      template.hasResourceProperties('AWS::EKS::AccessEntry', {
        ClusterName: { Ref: Match.stringLikeRegexp('EksCluster') },
        PrincipalArn: principal,
        AccessPolicies: [ADMIN_POLICY],
      });
    }
  });

  test('an entry keeps its logical id when another admin is removed', () => {
    const idOf = (t: Template, principal: string): string[] =>
      Object.keys(t.findResources('AWS::EKS::AccessEntry', { Properties: { PrincipalArn: principal } }));
    const second = admins[1] ?? '';
    const alone = regionalTemplate({ eks: { admin_principal_arns: [second] } });
    expect(idOf(alone, second)).toEqual(idOf(template, second));
    expect(idOf(alone, second)).toHaveLength(1);
  });
});

/**
 * The deployment's internal CA and the certificates issued from it (handler: lambda/internal-ca/).
 *
 * The edge proxies and the services present and verify `backend.<project>.<internal_domain>`, a private
 * `.internal` name no public CA (ACM included) can validate, so the platform runs its own CA:
 * - InternalCertificateAuthority (global stack): the secret `<project>/internal-ca`, replicated to every
 *   deployment region, filled once by a custom resource; `certificatePem` is the trust anchor the proxies
 *   get as INTERNAL_CA_PEM.
 * - InternalCertificate (regional stacks): a server certificate issued in the region from the CA
 *   secret's replica, imported into ACM for the ALB listener, and its key pair in a regional secret for
 *   the pods' HTTPS listeners. A daily EventBridge schedule renews it in place 30 days before its end
 *   (same ACM ARN, same secret; the pods reload the secret), so no deploy is needed to keep it valid.
 * Private keys exist only in Secrets Manager and ACM, never in a template, an attribute or a log.
 */
import { CustomResource, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import type { ICertificate } from 'aws-cdk-lib/aws-certificatemanager';
import { Rule, RuleTargetInput, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Provider } from 'aws-cdk-lib/custom-resources';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import type { CertificateName } from '../../contracts/platform-metrics.js';
import { INTERNAL_CA_TAG_KEY } from '../../contracts/internal-ca.js';
import type { CertificateRenewalEvent } from '../../contracts/internal-ca.js';
import { suppressProviderFramework } from '../nag-suppressions.js';
import { PlatformFunction } from './platform-function.js';
import { replicatedSecret } from './replicated-secret.js';
import type { ReplicatedSecretProps } from './replicated-secret.js';

const RESOURCE_TYPE = 'Custom::InternalCa';

/** One handler function + Provider per stack, shared by every internal-CA resource of that stack. */
class InternalCaProvider extends Construct {
  static of(scope: Construct): InternalCaProvider {
    const stack = Stack.of(scope);
    const id = 'InternalCaProvider';
    return (
      (stack.node.tryFindChild(id) as InternalCaProvider | undefined) ?? new InternalCaProvider(stack, id)
    );
  }

  readonly handler: PlatformFunction;
  readonly serviceToken: string;

  private constructor(scope: Construct, id: string) {
    super(scope, id);
    this.handler = new PlatformFunction(this, 'Handler', {
      entryName: 'internal-ca',
      description: 'Internal CA custom resources: creates the CA, issues and imports certificates',
      // RSA key generation and ACM import; far below this in practice.
      timeout: Duration.minutes(2),
      invokedBy: 'cloudformation-provider',
    });
    const provider = new Provider(this, 'Provider', {
      onEventHandler: this.handler,
      logGroup: new LogGroup(this, 'ProviderLogs', {
        retention: RetentionDays.ONE_MONTH,
        removalPolicy: RemovalPolicy.DESTROY,
      }),
    });
    this.serviceToken = provider.serviceToken;
    suppressProviderFramework(provider);
  }
}

/**
 * The internal-CA handler function of the stack `scope` is in, when the stack has internal-CA resources:
 * what its Errors alarm watches (lib/monitoring/).
 */
export function internalCaHandlerOf(scope: Construct): PlatformFunction | undefined {
  const provider = Stack.of(scope).node.tryFindChild('InternalCaProvider');
  return provider instanceof InternalCaProvider ? provider.handler : undefined;
}

/** Name, replica regions and project (also the CA's common name) of the CA secret. */
export type InternalCertificateAuthorityProps = ReplicatedSecretProps;

/** The CA secret `<project>/internal-ca` and the custom resource that fills it (global stack). */
export class InternalCertificateAuthority extends Construct {
  readonly secret: Secret;
  /** PEM of the CA certificate (deploy-time value): what clients of the internal hops trust. */
  readonly certificatePem: string;

  constructor(scope: Construct, id: string, props: InternalCertificateAuthorityProps) {
    super(scope, id);
    this.secret = replicatedSecret(
      this,
      props,
      `${props.projectName} internal CA {"certificatePem","privateKeyPem"}: issues the ALB and pod certificates`,
    );
    NagSuppressions.addResourceSuppressions(this.secret, [
      {
        id: 'AwsSolutions-SMG4',
        reason:
          'A CA key is not rotated on a schedule (every certificate issued from it would have to be re-issued at ' +
          'once); the custom resource replaces the CA a year before its 10-year validity ends',
      },
    ]);

    const provider = InternalCaProvider.of(this);
    this.secret.grantRead(provider.handler);
    this.secret.grantWrite(provider.handler);
    const resource = new CustomResource(this, 'Resource', {
      serviceToken: provider.serviceToken,
      resourceType: RESOURCE_TYPE,
      properties: {
        Kind: 'CertificateAuthority',
        SecretId: this.secret.secretArn,
        CommonName: `${props.projectName} internal CA`,
      },
    });
    this.certificatePem = resource.getAttString('CertificatePem');
  }
}

export interface InternalCertificateProps {
  /** Project name: the key-pair secret's description, and the Project dimension of its expiry metric. */
  readonly projectName: string;
  /**
   * Which of the region's certificates this is: the Certificate dimension of the daily
   * InternalCertificateDaysToExpiry metric (contracts/platform-metrics.ts) the renewal run logs.
   */
  readonly metricName: CertificateName;
  /** Name of the CA secret, whose replica in the stack's region issues the certificate. */
  readonly caSecretName: string;
  /** DNS names of the certificate; the first is its common name. */
  readonly dnsNames: string[];
  /**
   * Change this value to re-issue the certificate at once (same ACM ARN, new key pair), e.g. after a
   * suspected key exposure or a CA replacement (docs/global-stack.md, "Internal CA"). Routine renewal
   * needs no deploy: the daily schedule handles it.
   * @default none: the certificate is issued once and renewed by the schedule
   */
  readonly generation?: string;
}

/**
 * A server certificate from the internal CA, issued in the stack's region (deploy the global stack, and
 * so the CA secret's replica, first): imported into ACM for the ALB and written as
 * `{"certificatePem","privateKeyPem","caCertificatePem"}` to `keyPairSecret` for the pods.
 */
export class InternalCertificate extends Construct {
  readonly certificate: ICertificate;
  readonly certificateArn: string;
  /** PEM of the CA certificate (deploy-time value), e.g. INTERNAL_CA_PEM of the regional proxies. */
  readonly caCertificatePem: string;
  readonly keyPairSecret: ISecret;

  constructor(scope: Construct, id: string, props: InternalCertificateProps) {
    super(scope, id);
    if (props.dnsNames.length === 0) throw new Error('InternalCertificate needs at least one DNS name');

    const keyPair = new Secret(this, 'KeyPair', {
      description: `${props.projectName} TLS key pair for ${props.dnsNames[0]} (internal CA), read by the pods`,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    NagSuppressions.addResourceSuppressions(keyPair, [
      {
        id: 'AwsSolutions-SMG4',
        reason:
          'Renewed in place by the daily InternalCertificate renewal schedule (30 days before expiry), which rewrites this secret',
      },
    ]);
    this.keyPairSecret = keyPair;

    const caSecret = Secret.fromSecretNameV2(this, 'CaSecret', props.caSecretName);
    const provider = InternalCaProvider.of(this);
    grantIssuing(provider, caSecret, keyPair, props.projectName);

    const resource = new CustomResource(this, 'Resource', {
      serviceToken: provider.serviceToken,
      resourceType: RESOURCE_TYPE,
      properties: {
        Kind: 'Certificate',
        CaSecretId: props.caSecretName,
        KeyPairSecretId: keyPair.secretArn,
        DnsNames: props.dnsNames,
        // Dimensions of the days-to-expiry metric the handler logs after issuing (and daily on renewal).
        Certificate: props.metricName,
        Project: props.projectName,
        ...(props.generation !== undefined ? { Generation: props.generation } : {}),
      },
    });
    this.certificateArn = resource.getAttString('CertificateArn');
    this.caCertificatePem = resource.getAttString('CaCertificatePem');
    this.certificate = Certificate.fromCertificateArn(this, 'Certificate', this.certificateArn);

    this.addRenewal(provider, props, keyPair);
  }

  /** The daily renewal of this certificate by the provider's handler. */
  private addRenewal(provider: InternalCaProvider, props: InternalCertificateProps, keyPair: ISecret): void {
    // Daily: the handler re-issues only within 30 days of the end (or after a name change), so a
    // failed day is retried by the next with a month of margin; failures are error logs of the function.
    const renewalInput: CertificateRenewalEvent = {
      Kind: 'CertificateRenewal',
      CertificateArn: this.certificateArn,
      CaSecretId: props.caSecretName,
      KeyPairSecretId: keyPair.secretArn,
      DnsNames: props.dnsNames,
      Certificate: props.metricName,
      Project: props.projectName,
    };
    const renewal = new Rule(this, 'Renewal', {
      description: `Renews the internal certificate for ${props.dnsNames[0]} before it expires`,
      schedule: Schedule.rate(Duration.days(1)),
    });
    renewal.addTarget(
      new LambdaFunction(provider.handler, {
        event: RuleTargetInput.fromObject(renewalInput),
        retryAttempts: 2,
        maxEventAge: Duration.hours(1),
      }),
    );
    NagSuppressions.addResourceSuppressions(renewal, [
      {
        id: 'Serverless-EventBusDLQ',
        reason:
          'A missed daily renewal needs no replay: the next day re-checks the certificate, which is renewed ' +
          '30 days before its end; a failed run shows in the function Errors metric and its error log',
      },
    ]);
  }
}

/**
 * The provider's handler reads the CA, writes the key pair, and imports, re-imports, describes and deletes
 * ACM certificates: only those it imported, told by the tag INTERNAL_CA_TAG_KEY = project. ACM assigns a
 * certificate's id at import, so the resource is `certificate/*` and the tag does the limiting. Condition
 * keys per action, from the Service Authorization Reference for ACM
 * (https://docs.aws.amazon.com/service-authorization/latest/reference/list_awscertificatemanager.html):
 * ImportCertificate and AddTagsToCertificate (the tags of an import) take `aws:RequestTag/${TagKey}` and
 * `aws:TagKeys`; the certificate resource type takes `aws:ResourceTag/${TagKey}`, which a re-import
 * (CertificateArn given; ACM refuses tags on a re-import, https://docs.aws.amazon.com/acm/latest/APIReference/API_ImportCertificate.html),
 * DescribeCertificate and DeleteCertificate are evaluated against.
 */
function grantIssuing(
  provider: InternalCaProvider,
  caSecret: ISecret,
  keyPair: ISecret,
  projectName: string,
): void {
  const stack = Stack.of(provider);
  caSecret.grantRead(provider.handler);
  keyPair.grantRead(provider.handler);
  keyPair.grantWrite(provider.handler);
  const certificates = stack.formatArn({ service: 'acm', resource: 'certificate', resourceName: '*' });
  provider.handler.addToRolePolicy(
    new PolicyStatement({
      sid: 'ImportNewCertificatesTagged',
      actions: ['acm:ImportCertificate', 'acm:AddTagsToCertificate'],
      resources: [certificates],
      conditions: {
        StringEquals: { [`aws:RequestTag/${INTERNAL_CA_TAG_KEY}`]: projectName },
        'ForAllValues:StringEquals': { 'aws:TagKeys': [INTERNAL_CA_TAG_KEY] },
      },
    }),
  );
  provider.handler.addToRolePolicy(
    new PolicyStatement({
      sid: 'ManageOwnCertificates',
      actions: ['acm:ImportCertificate', 'acm:DescribeCertificate', 'acm:DeleteCertificate'],
      resources: [certificates],
      conditions: { StringEquals: { [`aws:ResourceTag/${INTERNAL_CA_TAG_KEY}`]: projectName } },
    }),
  );
  NagSuppressions.addResourceSuppressions(
    provider.handler.role!,
    [
      {
        id: 'AwsSolutions-IAM5',
        reason:
          'ACM assigns the certificate id at import: the ACM actions are granted on certificate/* limited by the ' +
          `${INTERNAL_CA_TAG_KEY} tag (request tag on import, resource tag otherwise); the CA secret replica is ` +
          'named, its random suffix is not',
        appliesTo: [
          { regex: '/^Resource::arn:<AWS::Partition>:acm:.*:certificate\\/\\*$/g' },
          { regex: '/^Resource::arn:<AWS::Partition>:secretsmanager:.*:secret:.*-\\?\\?\\?\\?\\?\\?$/g' },
        ],
      },
    ],
    true,
  );
}

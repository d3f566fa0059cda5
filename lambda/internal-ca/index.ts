/**
 * onEvent handler of the internal-CA custom resources (a `custom-resources` Provider; CDK side in
 * lib/constructs/internal-ca.ts). Two kinds, told apart by the `Kind` property:
 *
 * - `CertificateAuthority` (global stack): fills the CDK-declared secret `<project>/internal-ca` with
 *   `{"certificatePem","privateKeyPem"}`. A valid CA already there (a retried or updated resource) is
 *   kept, so certificates issued from it stay trusted; otherwise a new one is generated. Returns the CA
 *   certificate as `CertificatePem`. Delete does nothing (the secret has its own removal policy).
 * - `Certificate` (regional stacks): reads the CA from the secret's replica in its region, issues a
 *   server certificate for `DnsNames`, imports it into ACM (Update re-imports into the same ARN, so the
 *   listener keeps its certificate) and writes `{"certificatePem","privateKeyPem","caCertificatePem"}` to
 *   the regional key-pair secret for the pods' HTTPS listeners. Returns `CertificateArn` and
 *   `CaCertificatePem`. Delete removes the ACM certificate.
 * - `CertificateRenewal` (an EventBridge schedule of each regional stack, not CloudFormation): re-issues
 *   the region's certificate into the same ACM ARN and key-pair secret when it is within 30 days of its
 *   end or no longer matches its names; otherwise does nothing. The pods pick the new key pair up from
 *   the secret without a restart (cluster/shared/listen.ts). Every run logs one EMF line with
 *   InternalCertificateDaysToExpiry of the certificate it checked (dimension Certificate: the event's
 *   `Certificate`), which Lambda turns into the metric the expiry alarm watches.
 *
 * Private keys go only into Secrets Manager and ACM: never into a response, an attribute or a log line.
 */
import {
  ACMClient,
  DeleteCertificateCommand,
  ImportCertificateCommand,
  ResourceInUseException,
  ResourceNotFoundException as AcmNotFound,
} from '@aws-sdk/client-acm';
import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceNotFoundException as SecretNotFound,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { emfDocument } from '../../contracts/emf-document.js';
import type { CertificateRenewalEvent } from '../../contracts/internal-ca.js';
import type { CertificateName } from '../../contracts/platform-metrics.js';
import { entryPoint, failInvocation } from '../shared/entry-point.js';
import { describeError } from '../shared/errors.js';
import { readFunctionRegionConfig } from '../shared/function-region.js';
import { createLogger, type EdgeLogger } from '../shared/logger.js';
import type * as Pki from './pki.js';
import type { CaKeyPair, ServerKeyPair } from './pki.js';

export const SERVICE_NAME = 'internal-ca';

export interface OnEventResponse {
  PhysicalResourceId: string;
  Data?: Record<string, string>;
}

export interface InternalCaDeps {
  secrets: Pick<SecretsManagerClient, 'send'>;
  acm: Pick<ACMClient, 'send'>;
  logger?: EdgeLogger;
  now?: () => Date;
  generateCa?: (commonName: string, now: Date) => CaKeyPair;
  /** Region dimension of the renewal metric: the function's region (AWS_REGION). */
  region?: string;
  /** Writes one EMF line (stdout, where Lambda extracts the metrics from); tests capture it. */
  emitMetrics?: (line: string) => void;
}

export interface RenewalResult {
  readonly Renewed: boolean;
  /** Why the certificate was re-issued (absent when it was current). */
  readonly Reason?: string;
}

export type InternalCaEvent = CloudFormationCustomResourceEvent | CertificateRenewalEvent;

export interface InternalCaHandler {
  (event: CloudFormationCustomResourceEvent): Promise<OnEventResponse>;
  (event: CertificateRenewalEvent): Promise<RenewalResult>;
  (event: InternalCaEvent): Promise<OnEventResponse | RenewalResult>;
}

const enc = new TextEncoder();

const CERTIFICATE_NAMES: readonly CertificateName[] = ['alb', 'services'];

/** The metric's identity from the event, or undefined (no metric, the renewal still runs) when absent. */
function metricTarget(
  props: Record<string, unknown>,
): { certificate: CertificateName; project: string } | undefined {
  const certificate = CERTIFICATE_NAMES.find((name) => name === props.Certificate);
  const project = props.Project;
  if (certificate === undefined || typeof project !== 'string' || project === '') return undefined;
  return { certificate, project };
}

/**
 * The PKI module (node-forge, the largest part of the bundle), loaded on the first invocation that
 * reads or issues a certificate instead of at module init (docs/edge-lambdas.md, "Bundles and init").
 */
const pki = (): Promise<typeof Pki> => import('./pki.js');

function stringProp(props: Record<string, unknown>, name: string): string {
  const value = props[name];
  if (typeof value !== 'string' || value === '') throw new Error(`${name} is required (a non-empty string)`);
  return value;
}

function stringListProp(props: Record<string, unknown>, name: string): string[] {
  const value = props[name];
  if (!Array.isArray(value) || value.length === 0 || !value.every((v) => typeof v === 'string' && v !== '')) {
    throw new Error(`${name} is required (a non-empty list of strings)`);
  }
  return value as string[];
}

/** An ACM certificate ARN of any partition (a failed Create leaves a placeholder physical id). */
const isCertificateArn = (id: string): boolean => /^arn:[a-z-]+:acm:[a-z0-9-]+:\d{12}:certificate\//.test(id);

export function createHandler(deps: InternalCaDeps): InternalCaHandler {
  const logger = deps.logger ?? createLogger(SERVICE_NAME);
  const now = deps.now ?? (() => new Date());
  const emitMetrics = deps.emitMetrics ?? ((line: string) => console.log(line));
  const makeCa = async (commonName: string, at: Date): Promise<CaKeyPair> =>
    (deps.generateCa ?? (await pki()).generateCa)(commonName, at);

  /** One EMF line with the certificate's days to expiry (the expiry alarm's metric). */
  function reportDaysToExpiry(
    target: { certificate: CertificateName; project: string } | undefined,
    days: number | undefined,
  ): void {
    if (target === undefined || days === undefined || deps.region === undefined) return;
    const dimensions = { Project: target.project, Region: deps.region, Certificate: target.certificate };
    emitMetrics(JSON.stringify(emfDocument(now().getTime(), dimensions, { certificateDaysToExpiry: days })));
  }

  async function secretString(secretId: string): Promise<string | undefined> {
    try {
      return (await deps.secrets.send(new GetSecretValueCommand({ SecretId: secretId }))).SecretString;
    } catch (error) {
      if (error instanceof SecretNotFound) return undefined;
      throw error;
    }
  }

  async function putSecret(secretId: string, value: CaKeyPair | ServerKeyPair): Promise<void> {
    await deps.secrets.send(
      new PutSecretValueCommand({ SecretId: secretId, SecretString: JSON.stringify(value) }),
    );
  }

  async function certificateAuthority(
    event: CloudFormationCustomResourceEvent,
    props: Record<string, unknown>,
  ): Promise<OnEventResponse> {
    const secretId = stringProp(props, 'SecretId');
    const physicalId = event.RequestType === 'Create' ? `internal-ca:${secretId}` : event.PhysicalResourceId;
    if (event.RequestType === 'Delete') return { PhysicalResourceId: physicalId };
    const at = now();
    let ca = (await pki()).usableCa(await secretString(secretId), at);
    if (ca === undefined) {
      ca = await makeCa(stringProp(props, 'CommonName'), at);
      await putSecret(secretId, ca);
      logger.info('internal CA generated and stored', { secret: secretId });
    } else {
      logger.info('internal CA already present; kept', { secret: secretId });
    }
    return { PhysicalResourceId: physicalId, Data: { CertificatePem: ca.certificatePem } };
  }

  async function certificate(
    event: CloudFormationCustomResourceEvent,
    props: Record<string, unknown>,
  ): Promise<OnEventResponse> {
    if (event.RequestType === 'Delete') {
      const arn = event.PhysicalResourceId;
      if (!isCertificateArn(arn)) return { PhysicalResourceId: arn };
      try {
        await deps.acm.send(new DeleteCertificateCommand({ CertificateArn: arn }));
        logger.info('certificate deleted', { certificate_arn: arn });
      } catch (error) {
        if (error instanceof AcmNotFound) {
          logger.info('certificate already gone', { certificate_arn: arn });
        } else if (error instanceof ResourceInUseException) {
          // Failing would block the stack's deletion for good; the orphan is named in the log instead.
          logger.warn('certificate still in use: left in ACM, delete it by hand', { certificate_arn: arn });
        } else {
          throw error;
        }
      }
      return { PhysicalResourceId: arn };
    }

    const caSecretId = stringProp(props, 'CaSecretId');
    const keyPairSecretId = stringProp(props, 'KeyPairSecretId');
    const dnsNames = stringListProp(props, 'DnsNames');
    const ca = await regionalCa(caSecretId);
    const previousArn =
      event.RequestType === 'Update' && isCertificateArn(event.PhysicalResourceId)
        ? event.PhysicalResourceId
        : undefined;
    const { arn, certificatePem } = await issueAndImport(ca, dnsNames, keyPairSecretId, previousArn);
    logger.info('certificate issued and imported', {
      request: event.RequestType,
      certificate_arn: arn,
      dns_names: dnsNames,
    });
    // The first data point of the expiry alarm, a day before the first scheduled renewal reports.
    reportDaysToExpiry(metricTarget(props), (await pki()).daysToExpiry(certificatePem, now()));
    return {
      PhysicalResourceId: arn,
      Data: { CertificateArn: arn, CaCertificatePem: ca.certificatePem },
    };
  }

  /** The CA from its replica in this region; issuing needs it only to be valid now. */
  async function regionalCa(caSecretId: string): Promise<CaKeyPair> {
    const ca = (await pki()).usableCa(await secretString(caSecretId), now(), 0);
    if (ca === undefined) {
      throw new Error(
        `the internal CA secret ${caSecretId} holds no usable CA (deploy the global stack first)`,
      );
    }
    return ca;
  }

  /**
   * Issues a key pair, imports it into ACM (into `certificateArn` when given, keeping the listener's
   * association), then writes it to the pods' secret. Returns the key pair and the certificate ARN.
   */
  async function issueAndImport(
    ca: CaKeyPair,
    dnsNames: readonly string[],
    keyPairSecretId: string,
    certificateArn: string | undefined,
  ): Promise<ServerKeyPair & { arn: string }> {
    const pair = (await pki()).issueServerCertificate(ca, dnsNames, now());
    const imported = await deps.acm.send(
      new ImportCertificateCommand({
        ...(certificateArn ? { CertificateArn: certificateArn } : {}),
        Certificate: enc.encode(pair.certificatePem),
        PrivateKey: enc.encode(pair.privateKeyPem),
        CertificateChain: enc.encode(pair.caCertificatePem),
      }),
    );
    const arn = imported.CertificateArn;
    if (arn === undefined) throw new Error('ACM ImportCertificate returned no certificate ARN');
    await putSecret(keyPairSecretId, pair);
    return { ...pair, arn };
  }

  async function renewal(event: CertificateRenewalEvent): Promise<RenewalResult> {
    const props = event as unknown as Record<string, unknown>;
    const certificateArn = stringProp(props, 'CertificateArn');
    if (!isCertificateArn(certificateArn)) throw new Error('CertificateArn must be an ACM certificate ARN');
    const keyPairSecretId = stringProp(props, 'KeyPairSecretId');
    const dnsNames = stringListProp(props, 'DnsNames');
    const target = metricTarget(props);
    if (target === undefined) {
      logger.warn('renewal event names no Certificate/Project: no days-to-expiry metric', {
        certificate_arn: certificateArn,
      });
    }
    const caSecretId = stringProp(props, 'CaSecretId');
    const stored = await secretString(keyPairSecretId);
    const { daysToExpiry, issuedBy, parseKeyPair, renewalReason } = await pki();
    const daysLeft = (pem: string | undefined): number | undefined => {
      if (pem === undefined) return undefined;
      try {
        return daysToExpiry(pem, now());
      } catch {
        return undefined;
      }
    };
    // Logged whatever happens next: a renewal failing day after day shows as days running out.
    const report = (days: number | undefined): void => reportDaysToExpiry(target, days);
    const pair = parseKeyPair(stored);
    let ca: CaKeyPair;
    try {
      ca = await regionalCa(caSecretId);
    } catch (error) {
      report(daysLeft(pair?.certificatePem));
      throw error;
    }
    const reason = renewalReason(stored, dnsNames, now());
    if (reason === undefined) {
      const days = daysLeft(pair?.certificatePem);
      report(days);
      if (pair !== undefined && !issuedBy(pair.certificatePem, ca)) {
        logger.warn('certificate from a replaced CA: deploy this stack with a new generation', {
          certificate_arn: certificateArn,
        });
      } else {
        logger.info('certificate current; not renewed', {
          certificate_arn: certificateArn,
          days_to_expiry: days,
        });
      }
      return { Renewed: false };
    }
    let issued: ServerKeyPair;
    try {
      issued = await issueAndImport(ca, dnsNames, keyPairSecretId, certificateArn);
    } catch (error) {
      report(daysLeft(pair?.certificatePem));
      throw error;
    }
    const days = daysLeft(issued.certificatePem);
    report(days);
    logger.info('certificate renewed', {
      certificate_arn: certificateArn,
      reason,
      dns_names: dnsNames,
      days_to_expiry: days,
    });
    return { Renewed: true, Reason: reason };
  }

  async function handle(event: InternalCaEvent): Promise<OnEventResponse | RenewalResult> {
    if (!('RequestType' in event)) {
      try {
        if (event.Kind !== 'CertificateRenewal') {
          throw new Error(`Kind must be "CertificateRenewal", got ${JSON.stringify(event.Kind)}`);
        }
        return await renewal(event);
      } catch (error) {
        // The next day's run retries; the error log is what an alarm on the function watches.
        logger.error('certificate renewal failed', { kind: event.Kind, ...describeError(error) });
        throw error;
      }
    }
    const props = event.ResourceProperties as Record<string, unknown>;
    const fields = { request: event.RequestType, kind: props.Kind };
    try {
      switch (props.Kind) {
        case 'CertificateAuthority':
          return await certificateAuthority(event, props);
        case 'Certificate':
          return await certificate(event, props);
        default:
          throw new Error(
            `Kind must be "CertificateAuthority" or "Certificate", got ${JSON.stringify(props.Kind)}`,
          );
      }
    } catch (error) {
      logger.error('internal CA request failed', { ...fields, ...describeError(error) });
      throw error;
    }
  }
  return handle as InternalCaHandler;
}

export interface InternalCaFromEnvOptions {
  secrets?: Pick<SecretsManagerClient, 'send'>;
  acm?: Pick<ACMClient, 'send'>;
  logger?: EdgeLogger;
}

/** Builds the handler from the environment: its clients work in AWS_REGION. */
export function createHandlerFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  opts: InternalCaFromEnvOptions = {},
): InternalCaHandler {
  const { region } = readFunctionRegionConfig(env);
  return createHandler({
    region,
    secrets: opts.secrets ?? new SecretsManagerClient({ region }),
    acm: opts.acm ?? new ACMClient({ region }),
    ...(opts.logger ? { logger: opts.logger } : {}),
  });
}

const logger = createLogger(SERVICE_NAME);

/**
 * Lambda entry point (lambda/shared/entry-point.ts): a bad configuration fails the CloudFormation
 * request or the scheduled renewal.
 */
export const handler = entryPoint(logger, createHandlerFromEnv, failInvocation);

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
 *   the regional key-pair secret for the pods' HTTPS listeners. A new import carries the tag
 *   INTERNAL_CA_TAG_KEY = Project, the only certificates the function's role may touch. Returns
 *   `CertificateArn` and `CaCertificatePem`. Delete removes the ACM certificate: while ACM answers
 *   ResourceInUseException (the listener's detachment lags its deletion) it retries with backoff within
 *   the function's timeout, then fails the request with the reason and the users ACM names, so the
 *   certificate is never left behind silently.
 * - `CertificateRenewal` (an EventBridge schedule of each regional stack, not CloudFormation): re-issues
 *   the region's certificate into the same ACM ARN and key-pair secret when it is within 30 days of its
 *   end or no longer matches its names; otherwise does nothing. The pods pick the new key pair up from
 *   the secret without a restart (cluster/shared/listen.ts). Every run logs one EMF line with
 *   InternalCertificateDaysToExpiry of the certificate it checked (dimension Certificate: the event's
 *   `Certificate`), which Lambda turns into the metric the expiry alarm watches.
 *
 * Private keys go only into Secrets Manager and ACM: never into a response, an attribute or a log line.
 */
import { awsClientConfig } from '../../contracts/runtime/aws-clients.js';
import {
  ACMClient,
  DeleteCertificateCommand,
  DescribeCertificateCommand,
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
import { INTERNAL_CA_TAG_KEY } from '../../contracts/internal-ca.js';
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
  /** Waits between DeleteCertificate attempts; tests pass one that returns at once. */
  sleep?: (ms: number) => Promise<void>;
  /** How long Delete keeps retrying a certificate ACM reports in use (default DELETE_RETRY_BUDGET_MS). */
  deleteRetryBudgetMs?: number;
}

/**
 * Delete retries a certificate still in use for this long: well inside the 2-minute function timeout
 * (lib/constructs/internal-ca.ts), leaving time for the last attempt and the failure response.
 */
export const DELETE_RETRY_BUDGET_MS = 80_000;
const DELETE_FIRST_BACKOFF_MS = 2_000;
const DELETE_MAX_BACKOFF_MS = 20_000;

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

const CERTIFICATE_NAMES: readonly CertificateName[] = ['alb', 'services', 'inference'];

/** Who the days-to-expiry metric is about (its Certificate and Project dimensions). */
type MetricTarget = { certificate: CertificateName; project: string };

/** The metric's identity from the event, or undefined (no metric, the renewal still runs) when absent. */
function metricTarget(props: Record<string, unknown>): MetricTarget | undefined {
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

/** What the module's functions share: the handler's dependencies with their defaults filled in. */
interface CaContext {
  readonly secrets: Pick<SecretsManagerClient, 'send'>;
  readonly acm: Pick<ACMClient, 'send'>;
  readonly logger: EdgeLogger;
  readonly now: () => Date;
  readonly generateCa: ((commonName: string, now: Date) => CaKeyPair) | undefined;
  readonly region: string | undefined;
  readonly emitMetrics: (line: string) => void;
  readonly sleep: (ms: number) => Promise<void>;
  readonly deleteRetryBudgetMs: number;
}

export function createHandler(deps: InternalCaDeps): InternalCaHandler {
  const ctx: CaContext = {
    secrets: deps.secrets,
    acm: deps.acm,
    logger: deps.logger ?? createLogger(SERVICE_NAME),
    now: deps.now ?? (() => new Date()),
    generateCa: deps.generateCa,
    region: deps.region,
    emitMetrics: deps.emitMetrics ?? ((line: string) => console.log(line)),
    sleep: deps.sleep ?? ((ms: number) => new Promise((resolve) => setTimeout(resolve, ms))),
    deleteRetryBudgetMs: deps.deleteRetryBudgetMs ?? DELETE_RETRY_BUDGET_MS,
  };
  return ((event: InternalCaEvent) => handle(ctx, event)) as InternalCaHandler;
}

async function handle(ctx: CaContext, event: InternalCaEvent): Promise<OnEventResponse | RenewalResult> {
  if (!('RequestType' in event)) {
    try {
      if (event.Kind !== 'CertificateRenewal') {
        throw new Error(`Kind must be "CertificateRenewal", got ${JSON.stringify(event.Kind)}`);
      }
      return await renewal(ctx, event);
    } catch (error) {
      // The next day's run retries; the error log is what an alarm on the function watches.
      ctx.logger.error({ kind: event.Kind, ...describeError(error) }, 'certificate renewal failed');
      throw error;
    }
  }
  const props = event.ResourceProperties as Record<string, unknown>;
  const fields = { request: event.RequestType, kind: props.Kind };
  try {
    switch (props.Kind) {
      case 'CertificateAuthority':
        return await certificateAuthority(ctx, event, props);
      case 'Certificate':
        return await certificate(ctx, event, props);
      default:
        throw new Error(
          `Kind must be "CertificateAuthority" or "Certificate", got ${JSON.stringify(props.Kind)}`,
        );
    }
  } catch (error) {
    ctx.logger.error({ ...fields, ...describeError(error) }, 'internal CA request failed');
    throw error;
  }
}

async function makeCa(ctx: CaContext, commonName: string, at: Date): Promise<CaKeyPair> {
  return (ctx.generateCa ?? (await pki()).generateCa)(commonName, at);
}

/** One EMF line with the certificate's days to expiry (the expiry alarm's metric). */
function reportDaysToExpiry(
  ctx: CaContext,
  target: MetricTarget | undefined,
  days: number | undefined,
): void {
  if (target === undefined || days === undefined || ctx.region === undefined) return;
  const dimensions = { Project: target.project, Region: ctx.region, Certificate: target.certificate };
  ctx.emitMetrics(
    JSON.stringify(emfDocument(ctx.now().getTime(), dimensions, { certificateDaysToExpiry: days })),
  );
}

async function secretString(secrets: CaContext['secrets'], secretId: string): Promise<string | undefined> {
  try {
    return (await secrets.send(new GetSecretValueCommand({ SecretId: secretId }))).SecretString;
  } catch (error) {
    if (error instanceof SecretNotFound) return undefined;
    throw error;
  }
}

async function putSecret(
  secrets: CaContext['secrets'],
  secretId: string,
  value: CaKeyPair | ServerKeyPair,
): Promise<void> {
  await secrets.send(new PutSecretValueCommand({ SecretId: secretId, SecretString: JSON.stringify(value) }));
}

async function certificateAuthority(
  ctx: CaContext,
  event: CloudFormationCustomResourceEvent,
  props: Record<string, unknown>,
): Promise<OnEventResponse> {
  const secretId = stringProp(props, 'SecretId');
  const physicalId = event.RequestType === 'Create' ? `internal-ca:${secretId}` : event.PhysicalResourceId;
  if (event.RequestType === 'Delete') return { PhysicalResourceId: physicalId };
  const at = ctx.now();
  let ca = (await pki()).usableCa(await secretString(ctx.secrets, secretId), at);
  if (ca === undefined) {
    ca = await makeCa(ctx, stringProp(props, 'CommonName'), at);
    await putSecret(ctx.secrets, secretId, ca);
    ctx.logger.info({ secret: secretId }, 'internal CA generated and stored');
  } else {
    ctx.logger.info({ secret: secretId }, 'internal CA already present; kept');
  }
  return { PhysicalResourceId: physicalId, Data: { CertificatePem: ca.certificatePem } };
}

async function certificate(
  ctx: CaContext,
  event: CloudFormationCustomResourceEvent,
  props: Record<string, unknown>,
): Promise<OnEventResponse> {
  if (event.RequestType === 'Delete') return deleteCertificate(ctx, event.PhysicalResourceId);
  const caSecretId = stringProp(props, 'CaSecretId');
  const keyPairSecretId = stringProp(props, 'KeyPairSecretId');
  const dnsNames = stringListProp(props, 'DnsNames');
  const ca = await regionalCa(ctx, caSecretId);
  const previousArn =
    event.RequestType === 'Update' && isCertificateArn(event.PhysicalResourceId)
      ? event.PhysicalResourceId
      : undefined;
  const project = stringProp(props, 'Project');
  const { arn, certificatePem } = await issueAndImport(ctx, ca, dnsNames, keyPairSecretId, {
    reimportInto: previousArn,
    project,
  });
  ctx.logger.info(
    {
      request: event.RequestType,
      certificate_arn: arn,
      dns_names: dnsNames,
    },
    'certificate issued and imported',
  );
  // The first data point of the expiry alarm, a day before the first scheduled renewal reports.
  reportDaysToExpiry(ctx, metricTarget(props), (await pki()).daysToExpiry(certificatePem, ctx.now()));
  return {
    PhysicalResourceId: arn,
    Data: { CertificateArn: arn, CaCertificatePem: ca.certificatePem },
  };
}

/**
 * Deletes the certificate; one already gone is success. ACM refuses a certificate still associated with a
 * load balancer (ResourceInUseException, https://docs.aws.amazon.com/acm/latest/APIReference/API_DeleteCertificate.html):
 * retried with doubling backoff within the retry budget, then the request fails naming the users, so
 * CloudFormation reports DELETE_FAILED with the reason instead of leaving the certificate behind.
 * Any other error fails the request at once.
 */
async function deleteCertificate(ctx: CaContext, arn: string): Promise<OnEventResponse> {
  if (!isCertificateArn(arn)) return { PhysicalResourceId: arn };
  let waited = 0;
  let backoff = DELETE_FIRST_BACKOFF_MS;
  for (;;) {
    try {
      await ctx.acm.send(new DeleteCertificateCommand({ CertificateArn: arn }));
      ctx.logger.info({ certificate_arn: arn }, 'certificate deleted');
      return { PhysicalResourceId: arn };
    } catch (error) {
      if (error instanceof AcmNotFound) {
        ctx.logger.info({ certificate_arn: arn }, 'certificate already gone');
        return { PhysicalResourceId: arn };
      }
      if (!(error instanceof ResourceInUseException)) {
        const { error_name: name, error_message: message } = describeError(error);
        throw new Error(`ACM refused to delete ${arn}: ${name ?? 'Error'}: ${message ?? String(error)}`, {
          cause: error,
        });
      }
      if (waited + backoff > ctx.deleteRetryBudgetMs) {
        const users = await inUseBy(ctx, arn);
        throw new Error(
          `ACM refused to delete ${arn}: still in use after ${Math.round(waited / 1000)} s` +
            `${users.length > 0 ? ` by ${users.join(', ')}` : ''}; remove it from them, then retry the delete`,
        );
      }
      ctx.logger.warn({ certificate_arn: arn, retry_in_ms: backoff }, 'certificate still in use; retrying');
      await ctx.sleep(backoff);
      waited += backoff;
      backoff = Math.min(backoff * 2, DELETE_MAX_BACKOFF_MS);
    }
  }
}

/** The resources ACM says use the certificate (DescribeCertificate InUseBy); none when it cannot say. */
async function inUseBy(ctx: CaContext, arn: string): Promise<string[]> {
  try {
    const out = await ctx.acm.send(new DescribeCertificateCommand({ CertificateArn: arn }));
    return out.Certificate?.InUseBy ?? [];
  } catch (error) {
    ctx.logger.warn({ certificate_arn: arn, ...describeError(error) }, 'could not describe the certificate');
    return [];
  }
}

/** The CA from its replica in this region; issuing needs it only to be valid now. */
async function regionalCa(ctx: CaContext, caSecretId: string): Promise<CaKeyPair> {
  const ca = (await pki()).usableCa(await secretString(ctx.secrets, caSecretId), ctx.now(), 0);
  if (ca === undefined) {
    throw new Error(
      `the internal CA secret ${caSecretId} holds no usable CA (deploy the global stack first)`,
    );
  }
  return ca;
}

/** Where an import goes: into an existing certificate (no tags: ACM refuses them), or a new one tagged. */
interface ImportTarget {
  readonly reimportInto: string | undefined;
  /** The INTERNAL_CA_TAG_KEY value of a new certificate. */
  readonly project: string | undefined;
}

/**
 * Issues a key pair, imports it into ACM (into `reimportInto` when given, keeping the listener's
 * association; otherwise a new certificate tagged for this project), then writes it to the pods' secret.
 * Returns the key pair and the certificate ARN.
 */
async function issueAndImport(
  ctx: CaContext,
  ca: CaKeyPair,
  dnsNames: readonly string[],
  keyPairSecretId: string,
  target: ImportTarget,
): Promise<ServerKeyPair & { arn: string }> {
  const { reimportInto: certificateArn, project } = target;
  if (certificateArn === undefined && project === undefined) {
    throw new Error('a new certificate needs Project, the value of its ownership tag');
  }
  const pair = (await pki()).issueServerCertificate(ca, dnsNames, ctx.now());
  const imported = await ctx.acm.send(
    new ImportCertificateCommand({
      ...(certificateArn
        ? { CertificateArn: certificateArn }
        : { Tags: [{ Key: INTERNAL_CA_TAG_KEY, Value: project }] }),
      Certificate: enc.encode(pair.certificatePem),
      PrivateKey: enc.encode(pair.privateKeyPem),
      CertificateChain: enc.encode(pair.caCertificatePem),
    }),
  );
  const arn = imported.CertificateArn;
  if (arn === undefined) throw new Error('ACM ImportCertificate returned no certificate ARN');
  await putSecret(ctx.secrets, keyPairSecretId, pair);
  return { ...pair, arn };
}

/** Days until `pem` ends, or undefined when there is no certificate or it does not parse. */
function daysLeft(pkiModule: typeof Pki, pem: string | undefined, now: () => Date): number | undefined {
  if (pem === undefined) return undefined;
  try {
    return pkiModule.daysToExpiry(pem, now());
  } catch {
    return undefined;
  }
}

async function renewal(ctx: CaContext, event: CertificateRenewalEvent): Promise<RenewalResult> {
  const props = event as unknown as Record<string, unknown>;
  const certificateArn = stringProp(props, 'CertificateArn');
  if (!isCertificateArn(certificateArn)) throw new Error('CertificateArn must be an ACM certificate ARN');
  const keyPairSecretId = stringProp(props, 'KeyPairSecretId');
  const dnsNames = stringListProp(props, 'DnsNames');
  const target = metricTarget(props);
  if (target === undefined) {
    ctx.logger.warn(
      {
        certificate_arn: certificateArn,
      },
      'renewal event names no Certificate/Project: no days-to-expiry metric',
    );
  }
  const caSecretId = stringProp(props, 'CaSecretId');
  const stored = await secretString(ctx.secrets, keyPairSecretId);
  const pkiModule = await pki();
  // Logged whatever happens next: a renewal failing day after day shows as days running out.
  const report = (days: number | undefined): void => reportDaysToExpiry(ctx, target, days);
  const pair = pkiModule.parseKeyPair(stored);
  let ca: CaKeyPair;
  try {
    ca = await regionalCa(ctx, caSecretId);
  } catch (error) {
    report(daysLeft(pkiModule, pair?.certificatePem, ctx.now));
    throw error;
  }
  const reason = pkiModule.renewalReason(stored, dnsNames, ctx.now());
  if (reason === undefined) {
    const days = daysLeft(pkiModule, pair?.certificatePem, ctx.now);
    report(days);
    logNotRenewed(
      ctx.logger,
      certificateArn,
      days,
      pair !== undefined && !pkiModule.issuedBy(pair.certificatePem, ca),
    );
    return { Renewed: false };
  }
  let issued: ServerKeyPair;
  try {
    issued = await issueAndImport(ctx, ca, dnsNames, keyPairSecretId, {
      reimportInto: certificateArn,
      project: target?.project,
    });
  } catch (error) {
    report(daysLeft(pkiModule, pair?.certificatePem, ctx.now));
    throw error;
  }
  const days = daysLeft(pkiModule, issued.certificatePem, ctx.now);
  report(days);
  ctx.logger.info(
    {
      certificate_arn: certificateArn,
      reason,
      dns_names: dnsNames,
      days_to_expiry: days,
    },
    'certificate renewed',
  );
  return { Renewed: true, Reason: reason };
}

/** A certificate left as it is: current, or (warned) issued by a CA that has since been replaced. */
function logNotRenewed(
  logger: EdgeLogger,
  certificateArn: string,
  days: number | undefined,
  fromReplacedCa: boolean,
): void {
  if (fromReplacedCa) {
    logger.warn(
      {
        certificate_arn: certificateArn,
      },
      'certificate from a replaced CA: deploy this stack with a new generation',
    );
  } else {
    logger.info(
      {
        certificate_arn: certificateArn,
        days_to_expiry: days,
      },
      'certificate current; not renewed',
    );
  }
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
    secrets: opts.secrets ?? new SecretsManagerClient(awsClientConfig({ component: 'internal-ca', region })),
    acm: opts.acm ?? new ACMClient(awsClientConfig({ component: 'internal-ca', region })),
    ...(opts.logger ? { logger: opts.logger } : {}),
  });
}

const logger = createLogger(SERVICE_NAME);

/**
 * Lambda entry point (lambda/shared/entry-point.ts): a bad configuration fails the CloudFormation
 * request or the scheduled renewal.
 */
export const handler = entryPoint(logger, createHandlerFromEnv, failInvocation);

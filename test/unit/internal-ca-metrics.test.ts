/**
 * The daily internal-certificate renewal logs one EMF line with InternalCertificateDaysToExpiry (Lambda
 * extracts the metric from stdout): for the certificate kept, the one re-issued, or the one still in
 * place when the run fails; issuing at deploy time logs the first one. Secrets Manager and ACM are
 * test/unit/lambda/fake-internal-ca-aws.ts.
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import { createHandler } from '../../lambda/internal-ca/index.js';
import { type CertificateRenewalEvent } from '../../contracts/internal-ca.js';
import {
  generateCa,
  issueServerCertificate,
  SERVER_VALIDITY_DAYS,
  type CaKeyPair,
} from '../../lambda/internal-ca/pki.js';
import { customResourceEvent, memoryLogger } from './lambda/events.js';
import { fakeInternalCaAws, renewalEvent } from './lambda/fake-internal-ca-aws.js';

const CA_SECRET = 'gco/internal-ca';
const KEY_PAIR_SECRET = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:kp-AbCdEf';
const CERT_ARN = 'arn:aws:acm:eu-west-1:123456789012:certificate/1f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f';
const HOST = 'backend.gco.gco.internal';
const DAY_MS = 86_400_000;

const renewal: CertificateRenewalEvent = {
  ...renewalEvent(CERT_ARN, CA_SECRET, KEY_PAIR_SECRET, HOST),
  Certificate: 'alb',
  Project: 'gco',
};

let ca: CaKeyPair;
beforeAll(() => {
  ca = generateCa('test internal CA');
});

function setup(stored: Record<string, string>, at: Date) {
  const { clients } = fakeInternalCaAws(stored, CERT_ARN);
  const lines: string[] = [];
  const logger = memoryLogger();
  const handler = createHandler({
    ...clients,
    logger,
    now: () => at,
    region: 'eu-west-1',
    emitMetrics: (line) => lines.push(line),
  });
  return { handler, lines, logger };
}

/** The one EMF document logged, checked for its directive and dimensions; returns its value. */
function daysIn(lines: string[], at: Date, certificate: 'alb' | 'services' = 'alb'): number {
  expect(lines).toHaveLength(1);
  const doc = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
  expect(doc).toMatchObject({
    _aws: {
      Timestamp: at.getTime(),
      CloudWatchMetrics: [
        {
          Namespace: 'GCO/Platform',
          Dimensions: [['Project', 'Region', 'Certificate']],
          Metrics: [{ Name: 'InternalCertificateDaysToExpiry', Unit: 'Count' }],
        },
      ],
    },
    Project: 'gco',
    Region: 'eu-west-1',
    Certificate: certificate,
  });
  return doc.InternalCertificateDaysToExpiry as number;
}

describe('CertificateRenewal: InternalCertificateDaysToExpiry', () => {
  const issuedAt = new Date();
  const stored = () => JSON.stringify(issueServerCertificate(ca, [HOST], issuedAt));

  test('a current certificate: the whole days it has left', async () => {
    const at = new Date(issuedAt.getTime() + 100 * DAY_MS + 3_600_000);
    const { handler, lines } = setup({ [CA_SECRET]: JSON.stringify(ca), [KEY_PAIR_SECRET]: stored() }, at);
    expect(await handler(renewal)).toEqual({ Renewed: false });
    expect(daysIn(lines, at)).toBe(SERVER_VALIDITY_DAYS - 101);
  });

  test('a renewed certificate: the days of the new one; the Certificate dimension comes from the event', async () => {
    const at = new Date(issuedAt.getTime() + (SERVER_VALIDITY_DAYS - 10) * DAY_MS);
    const { handler, lines } = setup({ [CA_SECRET]: JSON.stringify(ca), [KEY_PAIR_SECRET]: stored() }, at);
    expect(await handler({ ...renewal, Certificate: 'services' })).toEqual({
      Renewed: true,
      Reason: 'expiring',
    });
    // Issued from `at` (5 minutes back-dated, never beyond the CA): just under the full validity.
    const days = daysIn(lines, at, 'services');
    expect(days).toBeGreaterThan(SERVER_VALIDITY_DAYS - 2);
    expect(days).toBeLessThanOrEqual(SERVER_VALIDITY_DAYS);
  });

  test('a failing run still reports the certificate in place, so the alarm sees the days run out', async () => {
    const at = new Date(issuedAt.getTime() + (SERVER_VALIDITY_DAYS - 5) * DAY_MS);
    // No CA replica in the region: renewal cannot issue.
    const { handler, lines } = setup({ [KEY_PAIR_SECRET]: stored() }, at);
    await expect(handler(renewal)).rejects.toThrow(/holds no usable CA/);
    expect(daysIn(lines, at)).toBe(4);
  });

  test('an event without Certificate/Project renews but logs no metric line, only a warning', async () => {
    const at = new Date(issuedAt.getTime() + DAY_MS);
    const { handler, lines, logger } = setup(
      { [CA_SECRET]: JSON.stringify(ca), [KEY_PAIR_SECRET]: stored() },
      at,
    );
    const { Certificate: _certificate, Project: _project, ...legacy } = renewal;
    expect(await handler(legacy)).toEqual({ Renewed: false });
    expect(lines).toEqual([]);
    expect(logger.text()).toContain('no days-to-expiry metric');
  });
});

describe('Certificate custom resource: the first data point at deploy time', () => {
  const certificateProps = {
    Kind: 'Certificate',
    CaSecretId: CA_SECRET,
    KeyPairSecretId: KEY_PAIR_SECRET,
    DnsNames: [HOST],
    Certificate: 'services',
    Project: 'gco',
  };

  test.each(['Create', 'Update'] as const)('%s logs the new certificate’s days to expiry', async (type) => {
    const at = new Date();
    const { handler, lines } = setup({ [CA_SECRET]: JSON.stringify(ca) }, at);
    await handler(customResourceEvent(type, certificateProps, CERT_ARN));
    const days = daysIn(lines, at, 'services');
    expect(days).toBeGreaterThan(SERVER_VALIDITY_DAYS - 2);
    expect(days).toBeLessThanOrEqual(SERVER_VALIDITY_DAYS);
  });

  test('Delete logs no metric', async () => {
    const { handler, lines } = setup({ [CA_SECRET]: JSON.stringify(ca) }, new Date());
    await handler(customResourceEvent('Delete', certificateProps, 'placeholder'));
    expect(lines).toEqual([]);
  });
});

// The internal-CA custom resource handler (lambda/internal-ca): CA creation and reuse in its secret,
// server certificates that chain to it (checked with node:crypto and a real TLS handshake), ACM import /
// re-import / delete, and private keys that never leave Secrets Manager and ACM.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { createServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, test } from '@jest/globals';
import {
  DeleteCertificateCommand,
  DescribeCertificateCommand,
  ImportCertificateCommand,
  ResourceInUseException,
  ResourceNotFoundException as AcmNotFound,
} from '@aws-sdk/client-acm';
import { PutSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import forge from 'node-forge';
import { INTERNAL_CA_TAG_KEY } from '../../contracts/internal-ca.js';
import { createHandler, DELETE_RETRY_BUDGET_MS } from '../../lambda/internal-ca/index.js';
import {
  CA_VALIDITY_DAYS,
  certificateSerial,
  generateCa,
  issueServerCertificate,
  SERVER_VALIDITY_DAYS,
  usableCa,
} from '../../lambda/internal-ca/pki.js';
import type { CaKeyPair, ServerKeyPair } from '../../lambda/internal-ca/pki.js';
import { customResourceEvent as event, memoryLogger } from './lambda/events.js';
import { fakeInternalCaAws, renewalEvent } from './lambda/fake-internal-ca-aws.js';

const CA_SECRET = 'gco/internal-ca';
const KEY_PAIR_SECRET = 'arn:aws-us-gov:secretsmanager:us-gov-west-1:123456789012:secret:kp-AbCdEf';
const CERT_ARN =
  'arn:aws-us-gov:acm:us-gov-west-1:123456789012:certificate/1f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f';
const HOST = 'backend.gco.gco.internal';
const DAY_MS = 86_400_000;
const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

const caProps = { Kind: 'CertificateAuthority', SecretId: CA_SECRET, CommonName: 'gco internal CA' };
const certProps = {
  Kind: 'Certificate',
  CaSecretId: CA_SECRET,
  KeyPairSecretId: KEY_PAIR_SECRET,
  DnsNames: [HOST],
  Project: 'gco',
};

function setup(stored: Record<string, string> = {}, now?: () => Date) {
  const { secrets, acm, values, clients } = fakeInternalCaAws(stored, CERT_ARN);
  const logger = memoryLogger();
  let generated = 0;
  /** The waits Delete asked for between attempts (no wall clock: each returns at once). */
  const waits: number[] = [];
  const handler = createHandler({
    ...clients,
    logger,
    sleep: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
    ...(now ? { now } : {}),
    generateCa: (name, at) => {
      generated++;
      return generateCa(name, at);
    },
  });
  return { secrets, acm, values, logger, handler, waits, generatedCount: () => generated };
}

let ca: CaKeyPair;
beforeAll(() => {
  ca = generateCa('test internal CA');
});

describe('CertificateAuthority', () => {
  test('Create fills a placeholder secret with a new 10-year CA and returns only its certificate', async () => {
    const { handler, values, logger } = setup({ [CA_SECRET]: 'random-placeholder-from-cloudformation' });
    const out = await handler(event('Create', caProps));

    const stored = JSON.parse(values.get(CA_SECRET) ?? '') as CaKeyPair;
    expect(out).toEqual({
      PhysicalResourceId: `internal-ca:${CA_SECRET}`,
      Data: { CertificatePem: stored.certificatePem },
    });
    const cert = new X509Certificate(stored.certificatePem);
    expect(cert.ca).toBe(true);
    expect(cert.subject).toBe('CN=gco internal CA');
    expect(cert.checkPrivateKey(createPrivateKey(stored.privateKeyPem))).toBe(true);
    const days = (new Date(cert.validTo).getTime() - Date.now()) / DAY_MS;
    expect(Math.round(days)).toBe(CA_VALIDITY_DAYS);
    expect(JSON.stringify(out)).not.toContain('PRIVATE KEY');
    expect(logger.text()).not.toContain('PRIVATE KEY');
  });

  test('Create and Update keep a valid CA already in the secret (issued certificates stay trusted)', async () => {
    const { handler, secrets, generatedCount } = setup({ [CA_SECRET]: JSON.stringify(ca) });
    const created = await handler(event('Create', caProps));
    const updated = await handler(event('Update', caProps, created.PhysicalResourceId));
    expect(created.Data).toEqual({ CertificatePem: ca.certificatePem });
    expect(updated).toEqual(created);
    expect(secrets.commandCalls(PutSecretValueCommand)).toHaveLength(0);
    expect(generatedCount()).toBe(0);
  });

  test('a CA within a year of its end is replaced', async () => {
    const old = generateCa('old CA', new Date(Date.now() - (CA_VALIDITY_DAYS - 300) * DAY_MS));
    expect(usableCa(JSON.stringify(old))).toBeUndefined();
    const { handler, values } = setup({ [CA_SECRET]: JSON.stringify(old) });
    const out = await handler(event('Update', caProps, `internal-ca:${CA_SECRET}`));
    expect(out.Data?.CertificatePem).not.toBe(old.certificatePem);
    expect((JSON.parse(values.get(CA_SECRET) ?? '') as CaKeyPair).certificatePem).toBe(
      out.Data?.CertificatePem,
    );
  });

  test('a stored pair whose key does not match its certificate is not a usable CA', () => {
    const other = generateCa('other');
    expect(
      usableCa(JSON.stringify({ certificatePem: ca.certificatePem, privateKeyPem: other.privateKeyPem })),
    ).toBeUndefined();
    expect(usableCa('not json')).toBeUndefined();
    expect(usableCa(JSON.stringify(ca))).toEqual(ca);
  });

  test('Delete leaves the secret to its own resource', async () => {
    const { handler, secrets } = setup({ [CA_SECRET]: JSON.stringify(ca) });
    const out = await handler(event('Delete', caProps, `internal-ca:${CA_SECRET}`));
    expect(out).toEqual({ PhysicalResourceId: `internal-ca:${CA_SECRET}` });
    expect(secrets.calls()).toHaveLength(0);
  });
});

describe('Certificate', () => {
  test('Create issues a certificate chained to the CA, imports it into ACM and stores the key pair', async () => {
    const { handler, acm, values, logger } = setup({ [CA_SECRET]: JSON.stringify(ca) });
    const out = await handler(event('Create', certProps));

    expect(out).toEqual({
      PhysicalResourceId: CERT_ARN,
      Data: { CertificateArn: CERT_ARN, CaCertificatePem: ca.certificatePem },
    });
    const pair = JSON.parse(values.get(KEY_PAIR_SECRET) ?? '') as ServerKeyPair;
    expect(pair.caCertificatePem).toBe(ca.certificatePem);
    const cert = new X509Certificate(pair.certificatePem);
    const caCert = new X509Certificate(ca.certificatePem);
    expect(cert.ca).toBe(false);
    expect(cert.checkIssued(caCert)).toBe(true);
    expect(cert.verify(caCert.publicKey)).toBe(true);
    expect(cert.subjectAltName).toBe(`DNS:${HOST}`);
    expect(cert.checkPrivateKey(createPrivateKey(pair.privateKeyPem))).toBe(true);

    const imported = acm.commandCalls(ImportCertificateCommand)[0]?.args[0].input;
    const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);
    expect(imported?.CertificateArn).toBeUndefined();
    // The ownership tag the role's ACM permissions are conditioned on.
    expect(imported?.Tags).toEqual([{ Key: INTERNAL_CA_TAG_KEY, Value: 'gco' }]);
    expect(text(imported?.Certificate)).toBe(pair.certificatePem);
    expect(text(imported?.PrivateKey)).toBe(pair.privateKeyPem);
    expect(text(imported?.CertificateChain)).toBe(ca.certificatePem);
    expect(JSON.stringify(out)).not.toContain('PRIVATE KEY');
    expect(logger.text()).not.toContain('PRIVATE KEY');
  });

  test('the issued key pair serves TLS that a client trusting only the CA accepts for the backend name', async () => {
    const { handler, values } = setup({ [CA_SECRET]: JSON.stringify(ca) });
    await handler(event('Create', certProps));
    const pair = JSON.parse(values.get(KEY_PAIR_SECRET) ?? '') as ServerKeyPair;

    const server = createServer({ key: pair.privateKeyPem, cert: pair.certificatePem }, (_req, res) => {
      res.end('ok');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const { port } = server.address() as AddressInfo;
      const body = await new Promise<string>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port,
            servername: HOST,
            ca: pair.caCertificatePem,
            path: '/',
            minVersion: 'TLSv1.2',
          },
          (res) => {
            let data = '';
            res.on('data', (chunk: Buffer) => (data += chunk.toString()));
            res.on('end', () => resolve(data));
          },
        );
        req.on('error', reject);
        req.end();
      });
      expect(body).toBe('ok');
      // The same server is refused for another name: the certificate is bound to the backend host.
      await expect(
        new Promise((resolve, reject) => {
          const req = request(
            { host: '127.0.0.1', port, servername: 'other.internal', ca: pair.caCertificatePem, path: '/' },
            resolve,
          );
          req.on('error', reject);
          req.end();
        }),
      ).rejects.toThrow(/altnames|Hostname/i);
    } finally {
      server.close();
    }
  });

  test('Update re-issues into the same ACM certificate', async () => {
    const { handler, acm, values } = setup({ [CA_SECRET]: JSON.stringify(ca) });
    const out = await handler(event('Update', { ...certProps, Generation: '2' }, CERT_ARN));
    expect(out.PhysicalResourceId).toBe(CERT_ARN);
    const reimport = acm.commandCalls(ImportCertificateCommand)[0]?.args[0].input;
    expect(reimport?.CertificateArn).toBe(CERT_ARN);
    // ACM refuses tags on a re-import; the certificate keeps the tag of its first import.
    expect(reimport?.Tags).toBeUndefined();
    expect(values.has(KEY_PAIR_SECRET)).toBe(true);
  });

  test('Create without Project (the ownership tag value) is refused before anything is imported', async () => {
    const { handler, acm } = setup({ [CA_SECRET]: JSON.stringify(ca) });
    const { Project: _omitted, ...untagged } = certProps;
    await expect(handler(event('Create', untagged))).rejects.toThrow(/Project is required/);
    expect(acm.calls()).toHaveLength(0);
  });

  test('without a CA in the region the request fails and says what to deploy first', async () => {
    const { handler, acm } = setup();
    await expect(handler(event('Create', certProps))).rejects.toThrow(/deploy the global stack first/);
    expect(acm.calls()).toHaveLength(0);
  });

  test('Delete removes the ACM certificate; one already gone is success', async () => {
    const deleted = setup();
    expect(await deleted.handler(event('Delete', certProps, CERT_ARN))).toEqual({
      PhysicalResourceId: CERT_ARN,
    });
    expect(deleted.acm.commandCalls(DeleteCertificateCommand)[0]?.args[0].input).toEqual({
      CertificateArn: CERT_ARN,
    });

    const gone = setup();
    gone.acm.on(DeleteCertificateCommand).rejects(new AcmNotFound({ message: 'gone', $metadata: {} }));
    await expect(gone.handler(event('Delete', certProps, CERT_ARN))).resolves.toEqual({
      PhysicalResourceId: CERT_ARN,
    });
  });

  test('Delete of a certificate still in use retries with backoff and succeeds once ACM lets go', async () => {
    const { handler, acm, waits } = setup();
    const inUse = new ResourceInUseException({ message: 'in use', $metadata: {} });
    acm.on(DeleteCertificateCommand).rejectsOnce(inUse).rejectsOnce(inUse).resolves({});
    await expect(handler(event('Delete', certProps, CERT_ARN))).resolves.toEqual({
      PhysicalResourceId: CERT_ARN,
    });
    expect(acm.commandCalls(DeleteCertificateCommand)).toHaveLength(3);
    expect(waits).toEqual([2_000, 4_000]);
  });

  test('Delete of a certificate ACM keeps refusing FAILS with the reason and its users (never a silent SUCCESS)', async () => {
    const { handler, acm, waits, logger } = setup();
    const listener =
      'arn:aws-us-gov:elasticloadbalancing:us-gov-west-1:123456789012:loadbalancer/app/gco/abc';
    acm
      .on(DeleteCertificateCommand)
      .rejects(new ResourceInUseException({ message: 'Certificate is in use', $metadata: {} }));
    acm
      .on(DescribeCertificateCommand)
      .resolves({ Certificate: { CertificateArn: CERT_ARN, InUseBy: [listener] } });
    await expect(handler(event('Delete', certProps, CERT_ARN))).rejects.toThrow(
      `ACM refused to delete ${CERT_ARN}: still in use after 70 s by ${listener}`,
    );
    // Doubling backoff capped at 20 s, all within the 80 s budget (the function's timeout is 2 minutes).
    expect(waits).toEqual([2_000, 4_000, 8_000, 16_000, 20_000, 20_000]);
    expect(sum(waits)).toBeLessThanOrEqual(DELETE_RETRY_BUDGET_MS);
    expect(acm.commandCalls(DeleteCertificateCommand)).toHaveLength(waits.length + 1);
    expect(logger.text()).toContain('internal CA request failed');
  });

  test('Delete fails at once on any other ACM error, with its name and message', async () => {
    const { handler, acm, waits } = setup();
    acm.on(DeleteCertificateCommand).rejects(new Error('Rate exceeded'));
    await expect(handler(event('Delete', certProps, CERT_ARN))).rejects.toThrow(
      `ACM refused to delete ${CERT_ARN}: Error: Rate exceeded`,
    );
    expect(waits).toEqual([]);
    expect(acm.commandCalls(DeleteCertificateCommand)).toHaveLength(1);
  });

  test('Delete after a failed Create (no certificate ARN) calls nothing', async () => {
    const { handler, acm } = setup();
    await handler(event('Delete', certProps, 'placeholder'));
    expect(acm.calls()).toHaveLength(0);
  });
});

describe('CertificateRenewal (the daily schedule)', () => {
  const renewal = renewalEvent(CERT_ARN, CA_SECRET, KEY_PAIR_SECRET, HOST);
  // The test CA is valid from a few minutes before now: issue from now on.
  const issuedAt = new Date();
  const stored = (names: readonly string[] = [HOST], from: CaKeyPair = ca) =>
    JSON.stringify(issueServerCertificate(from, names, issuedAt));
  const serialOf = (secret: string | undefined) =>
    new X509Certificate((JSON.parse(secret ?? '') as ServerKeyPair).certificatePem).serialNumber;

  test('a certificate more than 30 days from its end is left alone: no import, secret unchanged', async () => {
    const current = stored();
    const at = new Date(issuedAt.getTime() + (SERVER_VALIDITY_DAYS - 31) * DAY_MS);
    const { handler, acm, values } = setup(
      { [CA_SECRET]: JSON.stringify(ca), [KEY_PAIR_SECRET]: current },
      () => at,
    );
    expect(await handler(renewal)).toEqual({ Renewed: false });
    expect(acm.commandCalls(ImportCertificateCommand)).toHaveLength(0);
    expect(values.get(KEY_PAIR_SECRET)).toBe(current);
  });

  test('within 30 days of its end it is re-issued into the same ACM ARN and secret, valid from now', async () => {
    const current = stored();
    const at = new Date(issuedAt.getTime() + (SERVER_VALIDITY_DAYS - 29) * DAY_MS);
    const { handler, acm, values, logger } = setup(
      { [CA_SECRET]: JSON.stringify(ca), [KEY_PAIR_SECRET]: current },
      () => at,
    );
    const out = await handler(renewal);
    expect(out).toEqual({ Renewed: true, Reason: 'expiring' });
    const calls = acm.commandCalls(ImportCertificateCommand);
    expect(calls.map((c) => c.args[0].input.CertificateArn)).toEqual([CERT_ARN]);
    const pair = JSON.parse(values.get(KEY_PAIR_SECRET) ?? '') as ServerKeyPair;
    expect(serialOf(values.get(KEY_PAIR_SECRET))).not.toBe(serialOf(current));
    const cert = new X509Certificate(pair.certificatePem);
    expect(cert.checkIssued(new X509Certificate(ca.certificatePem))).toBe(true);
    expect(new Date(cert.validTo).getTime()).toBeGreaterThan(at.getTime() + 365 * DAY_MS);
    expect(new TextDecoder().decode(calls[0]?.args[0].input.Certificate)).toBe(pair.certificatePem);
    expect(JSON.stringify(out) + logger.text()).not.toContain('PRIVATE KEY');
  });

  test.each([
    {
      name: 'a certificate for other names',
      make: () => stored(['old.gco.internal']),
      reason: 'names changed',
    },
    { name: 'no key pair in the secret', make: () => undefined, reason: 'no key pair stored' },
    { name: 'a key pair that is not JSON', make: () => 'garbage', reason: 'no key pair stored' },
  ])('$name is re-issued ($reason)', async ({ make, reason }) => {
    const value = make();
    const { handler, acm } = setup(
      { [CA_SECRET]: JSON.stringify(ca), ...(value !== undefined ? { [KEY_PAIR_SECRET]: value } : {}) },
      () => new Date(issuedAt.getTime() + DAY_MS),
    );
    expect(await handler(renewal)).toEqual({ Renewed: true, Reason: reason });
    expect(acm.commandCalls(ImportCertificateCommand)[0]?.args[0].input.CertificateArn).toBe(CERT_ARN);
  });

  test('a valid certificate of a replaced CA is kept, with a warning to deploy a new generation', async () => {
    // Switching CAs alone would break the proxies, which trust the CA their stack was deployed with.
    const current = stored([HOST], generateCa('replaced CA'));
    const { handler, acm, values, logger } = setup(
      { [CA_SECRET]: JSON.stringify(ca), [KEY_PAIR_SECRET]: current },
      () => new Date(issuedAt.getTime() + DAY_MS),
    );
    expect(await handler(renewal)).toEqual({ Renewed: false });
    expect(acm.calls()).toHaveLength(0);
    expect(values.get(KEY_PAIR_SECRET)).toBe(current);
    expect(logger.text()).toContain('certificate from a replaced CA');
  });

  test('a malformed schedule input fails loudly (logged, nothing imported)', async () => {
    const { handler, acm, logger } = setup({ [CA_SECRET]: JSON.stringify(ca) });
    await expect(handler({ ...renewal, CertificateArn: 'placeholder' })).rejects.toThrow(
      /ACM certificate ARN/,
    );
    await expect(handler({ ...renewal, DnsNames: [] })).rejects.toThrow(/DnsNames is required/);
    expect(acm.calls()).toHaveLength(0);
    expect(logger.text()).toContain('certificate renewal failed');
  });
});

test('an unknown kind or a missing property is refused', async () => {
  const { handler } = setup({ [CA_SECRET]: JSON.stringify(ca) });
  await expect(handler(event('Create', { Kind: 'Other' }))).rejects.toThrow(/Kind must be/);
  await expect(handler(event('Create', { ...certProps, DnsNames: [] }))).rejects.toThrow(
    /DnsNames is required/,
  );
  await expect(handler(event('Create', { Kind: 'CertificateAuthority' }))).rejects.toThrow(
    /SecretId is required/,
  );
});

describe('certificate serials', () => {
  let keys: forge.pki.rsa.KeyPair;
  beforeAll(() => {
    keys = forge.pki.rsa.generateKeyPair({ bits: 1024, e: 0x10001 });
  });
  // Regression: a serial written as "0" + 30 hex digits became a DER INTEGER with a 0x00 pad before a
  // byte below 0x80 about half the time; OpenSSL rejects that ("illegal padding") and TLS clients then
  // fail with "unable to verify the first certificate".
  test.each([0x00, 0x01, 0x3f, 0x7f, 0x80, 0xff].map((b) => [b.toString(16).padStart(2, '0'), b] as const))(
    'a serial whose random first byte is 0x%s encodes as minimal positive DER that OpenSSL parses',
    (_hex, first) => {
      const random = (size: number): Buffer => Buffer.from([first, ...Array<number>(size - 1).fill(0x5a)]);
      const hex = certificateSerial(random);
      expect(hex).toMatch(/^[4-7][0-9a-f]{31}$/);
      const cert = forge.pki.createCertificate();
      cert.publicKey = keys.publicKey;
      cert.serialNumber = hex;
      cert.validity.notBefore = new Date();
      cert.validity.notAfter = new Date(Date.now() + DAY_MS);
      cert.setSubject([{ name: 'commonName', value: 'serial' }]);
      cert.setIssuer([{ name: 'commonName', value: 'serial' }]);
      cert.sign(keys.privateKey, forge.md.sha256.create());
      expect(new X509Certificate(forge.pki.certificateToPem(cert)).serialNumber.toLowerCase()).toBe(hex);
    },
  );

  test('every certificate the CA writes parses in OpenSSL (many draws, both CA and server)', () => {
    for (let i = 0; i < 10; i++) {
      const pair = issueServerCertificate(ca, [HOST]);
      const leaf = new X509Certificate(pair.certificatePem);
      expect(leaf.checkIssued(new X509Certificate(ca.certificatePem))).toBe(true);
    }
  });
});

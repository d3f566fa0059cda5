/**
 * The internal CA's certificate work: generate the CA, check a stored one, issue server certificates.
 * The deploy-time CA (lambda/internal-ca) and the local platform's CA (local/tls.ts) both issue here.
 * Keys and signatures come from node:crypto (native, fast); node-forge lays out the certificates (Node
 * has no X.509 writer).
 */
import {
  constants,
  createPrivateKey,
  generateKeyPairSync,
  privateEncrypt,
  randomBytes,
  X509Certificate,
} from 'node:crypto';
import { isIP } from 'node:net';
import forge from 'node-forge';

/** `<project>/internal-ca` secret value. */
export interface CaKeyPair {
  readonly certificatePem: string;
  readonly privateKeyPem: string;
}

/** Regional key-pair secret value: what a pod's HTTPS listener needs (TLS_SECRET_ARN). */
export interface ServerKeyPair extends CaKeyPair {
  readonly caCertificatePem: string;
}

const DAY_MS = 86_400_000;
/** RSA 3072 for a CA that lives 10 years (NIST: 2048-bit keys are acceptable only through 2030). */
export const CA_KEY_BITS = 3072;
export const CA_VALIDITY_DAYS = 3650;
/** A CA closer than this to its end is replaced on the next Create/Update. */
export const CA_RENEW_BEFORE_DAYS = 365;
/** RSA 2048: the key type every ALB TLS policy and ACM import accept. */
export const SERVER_KEY_BITS = 2048;
export const SERVER_VALIDITY_DAYS = 395;
/** The daily renewal re-issues a server certificate this close to its end (30 missed runs of margin). */
export const SERVER_RENEW_BEFORE_DAYS = 30;

/** DER prefix of a SHA-256 DigestInfo (RFC 8017 §9.2, note 1). */
const SHA256_DIGEST_INFO = Buffer.from('3031300d060960864801650304020105000420', 'hex');

/**
 * The key as forge needs it to lay out a certificate, with the RSA signature itself computed by
 * node:crypto: PKCS#1 v1.5 over the SHA-256 DigestInfo, the same bytes forge would produce, natively.
 */
function signingKey(pem: string): forge.pki.rsa.PrivateKey {
  const key = forge.pki.privateKeyFromPem(pem);
  key.sign = (md) => {
    const digest = Buffer.from((md as forge.md.MessageDigest).digest().getBytes(), 'binary');
    const signature = privateEncrypt(
      { key: pem, padding: constants.RSA_PKCS1_PADDING },
      Buffer.concat([SHA256_DIGEST_INFO, digest]),
    );
    return signature.toString('binary');
  };
  return key;
}

function rsaKey(bits: number): { pem: string; forgeKey: forge.pki.rsa.PrivateKey } {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: bits });
  const pem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  return { pem, forgeKey: signingKey(pem) };
}

/**
 * A certificate serial as hex: 16 random bytes (RFC 5280: positive, at most 20 octets, unpredictable),
 * first byte in 0x40–0x7f so the DER INTEGER is positive and minimal. A leading 0x00 pad before a byte
 * below 0x80 is non-minimal DER, which OpenSSL rejects as "illegal padding" and TLS clients then refuse.
 */
export function certificateSerial(random: (size: number) => Buffer = randomBytes): string {
  const bytes = random(16);
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x40;
  return bytes.toString('hex');
}

export interface CaOptions {
  /** Default CA_KEY_BITS. */
  readonly keyBits?: number;
  /** Default CA_VALIDITY_DAYS. */
  readonly validityDays?: number;
}

/** A self-signed CA: basicConstraints CA (path length 0), keyCertSign + cRLSign. */
export function generateCa(commonName: string, now = new Date(), options: CaOptions = {}): CaKeyPair {
  const key = rsaKey(options.keyBits ?? CA_KEY_BITS);
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(key.forgeKey.n, key.forgeKey.e);
  cert.serialNumber = certificateSerial();
  cert.validity.notBefore = new Date(now.getTime() - 5 * 60_000);
  cert.validity.notAfter = new Date(now.getTime() + (options.validityDays ?? CA_VALIDITY_DAYS) * DAY_MS);
  const name = [{ name: 'commonName', value: commonName }];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(key.forgeKey, forge.md.sha256.create());
  return { certificatePem: forge.pki.certificateToPem(cert), privateKeyPem: key.pem };
}

/** Parses a stored key pair; undefined when it is not JSON with both PEM strings. */
export function parseKeyPair(secretString: string | undefined): CaKeyPair | undefined {
  if (secretString === undefined) return undefined;
  try {
    const value = JSON.parse(secretString) as Partial<CaKeyPair>;
    if (typeof value.certificatePem !== 'string' || typeof value.privateKeyPem !== 'string') return undefined;
    return { certificatePem: value.certificatePem, privateKeyPem: value.privateKeyPem };
  } catch {
    return undefined;
  }
}

/**
 * The stored CA when usable: a CA certificate with the matching key, valid now and for at least
 * `renewBeforeDays` more (a CA is replaced a year before its end; issuing needs it only to be valid).
 */
export function usableCa(
  secretString: string | undefined,
  now = new Date(),
  renewBeforeDays = CA_RENEW_BEFORE_DAYS,
): CaKeyPair | undefined {
  const pair = parseKeyPair(secretString);
  if (pair === undefined) return undefined;
  try {
    const cert = new X509Certificate(pair.certificatePem);
    if (!cert.ca || !cert.checkPrivateKey(createPrivateKey(pair.privateKeyPem))) return undefined;
    if (new Date(cert.validFrom).getTime() > now.getTime()) return undefined;
    if (new Date(cert.validTo).getTime() - now.getTime() <= renewBeforeDays * DAY_MS) return undefined;
    return pair;
  } catch {
    return undefined;
  }
}

/** A server certificate for DNS names (and/or IP addresses) signed by the CA; the first name is the CN. */
export function issueServerCertificate(
  ca: CaKeyPair,
  names: readonly string[],
  now = new Date(),
): ServerKeyPair {
  const first = names[0];
  if (first === undefined) throw new Error('a certificate needs at least one DNS name or IP address');
  const caCert = forge.pki.certificateFromPem(ca.certificatePem);
  const caKey = signingKey(ca.privateKeyPem);
  const key = rsaKey(SERVER_KEY_BITS);
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(key.forgeKey.n, key.forgeKey.e);
  cert.serialNumber = certificateSerial();
  cert.validity.notBefore = new Date(now.getTime() - 5 * 60_000);
  // Never outlive the CA: a chain is only as valid as its shortest link.
  const end = Math.min(now.getTime() + SERVER_VALIDITY_DAYS * DAY_MS, caCert.validity.notAfter.getTime());
  cert.validity.notAfter = new Date(end);
  cert.setSubject([{ name: 'commonName', value: first }]);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: names.map((n) => (isIP(n) ? { type: 7, ip: n } : { type: 2, value: n })),
    },
    { name: 'subjectKeyIdentifier' },
    {
      name: 'authorityKeyIdentifier',
      keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes(),
    },
  ]);
  cert.sign(caKey, forge.md.sha256.create());
  return {
    certificatePem: forge.pki.certificateToPem(cert),
    privateKeyPem: key.pem,
    caCertificatePem: ca.certificatePem,
  };
}

/** How X509Certificate.subjectAltName names a DNS name or an IP address. */
const altName = (name: string): string => (isIP(name) ? `IP Address:${name}` : `DNS:${name}`);

/**
 * Why the server key pair stored in `secretString` must be re-issued for `dnsNames`, or undefined when it
 * is current: missing or unreadable, key not matching, other names, or within `renewBeforeDays` of its
 * end. A certificate of a replaced CA is not re-issued for that alone: the proxies trust the CA their
 * stack was deployed with, so moving to the new CA is a deploy's job (`generation`), not the schedule's.
 */
export function renewalReason(
  secretString: string | undefined,
  dnsNames: readonly string[],
  now = new Date(),
  renewBeforeDays = SERVER_RENEW_BEFORE_DAYS,
): string | undefined {
  const pair = parseKeyPair(secretString);
  if (pair === undefined) return 'no key pair stored';
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(pair.certificatePem);
    if (!cert.checkPrivateKey(createPrivateKey(pair.privateKeyPem))) return 'key does not match certificate';
  } catch {
    return 'stored key pair unreadable';
  }
  const names = (cert.subjectAltName ?? '').split(', ').sort();
  if (JSON.stringify(names) !== JSON.stringify(dnsNames.map(altName).sort())) return 'names changed';
  if (new Date(cert.validTo).getTime() - now.getTime() <= renewBeforeDays * DAY_MS) return 'expiring';
  return undefined;
}

/** Whether `certificatePem` was signed by `ca` (false after a CA replacement). */
export function issuedBy(certificatePem: string, ca: CaKeyPair): boolean {
  const cert = new X509Certificate(certificatePem);
  const caCert = new X509Certificate(ca.certificatePem);
  return cert.checkIssued(caCert) && cert.verify(caCert.publicKey);
}

/** Whole days from `now` until the end of the certificate in `certificatePem` (negative once expired). */
export function daysToExpiry(certificatePem: string, now = new Date()): number {
  return Math.floor(
    (new Date(new X509Certificate(certificatePem).validTo).getTime() - now.getTime()) / DAY_MS,
  );
}

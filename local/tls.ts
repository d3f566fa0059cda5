/**
 * A throw-away certificate authority for the local platform and tests: real TLS wherever the spec has TLS
 * (the ALB's re-encryption to the services, the internal CA the edge and the services verify, model
 * servers, webhook receivers), with certificates that exist only for the life of the process.
 */
import { isIP } from 'node:net';
import forge from 'node-forge';
import { certificateSerial } from '../lambda/internal-ca/pki.js';

export interface IssuedCertificate {
  /** PEM private key. */
  key: string;
  /** PEM certificate signed by the CA. */
  cert: string;
}

export interface TestCa {
  /** PEM certificate of the CA: what clients trust. */
  readonly cert: string;
  /** Issues a server certificate for DNS names and/or IP addresses. */
  issue(names: readonly string[]): IssuedCertificate;
}

// 2048-bit RSA keeps generation fast enough for tests (~100 ms per key) while being a real key size.
const KEY_BITS = 2048;

export function createTestCa(commonName = 'gco-platform local CA'): TestCa {
  const caKeys = forge.pki.rsa.generateKeyPair(KEY_BITS);
  const caCert = forge.pki.createCertificate();
  caCert.publicKey = caKeys.publicKey;
  caCert.serialNumber = certificateSerial();
  caCert.validity.notBefore = new Date(Date.now() - 60_000);
  caCert.validity.notAfter = new Date(Date.now() + 7 * 86_400_000);
  const caName = [{ name: 'commonName', value: commonName }];
  caCert.setSubject(caName);
  caCert.setIssuer(caName);
  caCert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  caCert.sign(caKeys.privateKey, forge.md.sha256.create());

  return {
    cert: forge.pki.certificateToPem(caCert),
    issue(names) {
      if (names.length === 0) throw new Error('a certificate needs at least one DNS name or IP address');
      const keys = forge.pki.rsa.generateKeyPair(KEY_BITS);
      const cert = forge.pki.createCertificate();
      cert.publicKey = keys.publicKey;
      cert.serialNumber = certificateSerial();
      cert.validity.notBefore = new Date(Date.now() - 60_000);
      cert.validity.notAfter = new Date(Date.now() + 86_400_000);
      cert.setSubject([{ name: 'commonName', value: names[0] ?? 'localhost' }]);
      cert.setIssuer(caCert.subject.attributes);
      cert.setExtensions([
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
        { name: 'extKeyUsage', serverAuth: true },
        {
          name: 'subjectAltName',
          altNames: names.map((n) => (isIP(n) ? { type: 7, ip: n } : { type: 2, value: n })),
        },
      ]);
      cert.sign(caKeys.privateKey, forge.md.sha256.create());
      return { key: forge.pki.privateKeyToPem(keys.privateKey), cert: forge.pki.certificateToPem(cert) };
    },
  };
}

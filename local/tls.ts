/**
 * The local platform's certificate authority: real TLS wherever the spec has TLS (the ALB's
 * re-encryption to the services, the internal CA the edge and the services verify, model servers,
 * webhook receivers). It issues through the deploy-time CA's own code (lambda/internal-ca/pki.ts); its
 * certificates exist only for the life of the process.
 */
import { generateCa, issueServerCertificate } from '../lambda/internal-ca/pki.js';

export interface IssuedCertificate {
  /** PEM private key. */
  key: string;
  /** PEM certificate signed by the CA. */
  cert: string;
}

export interface LocalCa {
  /** PEM certificate of the CA: what clients trust. */
  readonly cert: string;
  /** Issues a server certificate for DNS names and/or IP addresses (the first is the common name). */
  issue(names: readonly string[]): IssuedCertificate;
}

/**
 * A CA that lives a week with a 2048-bit key: generated in a fraction of the deploy-time 3072-bit key's
 * time (tests create many), still a real key size.
 */
const LOCAL_CA = { keyBits: 2048, validityDays: 7 } as const;

export function createLocalCa(commonName = 'gco-platform local CA'): LocalCa {
  const ca = generateCa(commonName, new Date(), LOCAL_CA);
  return {
    cert: ca.certificatePem,
    issue(names) {
      const pair = issueServerCertificate(ca, names);
      return { key: pair.privateKeyPem, cert: pair.certificatePem };
    },
  };
}

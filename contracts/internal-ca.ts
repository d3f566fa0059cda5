/**
 * The internal CA function's scheduled-renewal input: written by the regional stack's renewal schedule
 * (lib/constructs/internal-ca.ts), read by lambda/internal-ca.
 */
import type { CertificateName } from './platform-metrics.js';

export interface CertificateRenewalEvent {
  readonly Kind: 'CertificateRenewal';
  readonly CertificateArn: string;
  readonly CaSecretId: string;
  readonly KeyPairSecretId: string;
  readonly DnsNames: readonly string[];
  /**
   * Which certificate this is: the Certificate dimension of InternalCertificateDaysToExpiry. Always set
   * by InternalCertificate; an event without it (or without Project) renews but reports no metric.
   */
  readonly Certificate?: CertificateName;
  /** Project dimension of the metric (config project_name). */
  readonly Project?: string;
}

/**
 * The tag the internal-CA function puts on every certificate it imports into ACM (value: the project
 * name): its IAM role may re-import, describe and delete only certificates carrying it
 * (lib/constructs/internal-ca.ts), and may import new ones only with it.
 */
export const INTERNAL_CA_TAG_KEY = 'gco:internal-ca';

/**
 * Copies the model endpoints' key pair from Secrets Manager (the regional stack's InferenceCertificate,
 * `{"certificatePem","privateKeyPem","caCertificatePem"}`, renewed in place 30 days before expiry) into
 * the Kubernetes Secret the TLS sidecars mount (type kubernetes.io/tls, keys tls.crt/tls.key,
 * https://kubernetes.io/docs/concepts/configuration/secret/#tls-secrets).
 *
 * Cheap per pass: one GET of the Kubernetes Secret; Secrets Manager is read at most every `refreshMs`
 * (or at once when the Kubernetes Secret is missing or differs from what this replica wrote), and the
 * Secret is written only when the certificate's hash differs from the one it carries. The hash is what
 * the pod templates carry, so a renewed certificate rolls the model pods (nginx reads the files at start).
 */
import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import {
  CoreV1Api,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
  type V1Secret,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { ENDPOINT_LABELS, INFERENCE_NAMESPACE } from '../../../../contracts/inference-endpoints.js';
import { errorMessage } from '../../../../contracts/runtime/errors.js';
import { kubeStatusOf } from '../../../shared/kube-errors.js';
import { pooledKubeConfig } from '../../../shared/kube-pool.js';

/** Hash of the synced certificate: on the Secret, and on every model pod template (rolls them on renewal). */
export const TLS_HASH_ANNOTATION = 'gco.dev/inference-tls-hash';
const FIELD_MANAGER = 'gco-inference-reconciler';

export interface TlsSecretSyncOptions {
  kubeConfig: KubeConfig;
  secrets: Pick<SecretsManagerClient, 'send'>;
  /** INFERENCE_TLS_KEY_PAIR_SECRET_ARN. */
  keyPairSecretArn: string;
  /** The Kubernetes Secret in gco-inference (INFERENCE_TLS_SECRET). */
  secretName: string;
  /** Longest time between two reads of Secrets Manager while the Kubernetes Secret is as written. */
  refreshMs: number;
  logger?: Logger;
  now?: () => number;
}

interface KeyPair {
  versionId: string | undefined;
  crt: string;
  key: string;
  hash: string;
}

/** The key pair of a secret value, checked; an Error names the problem, never a value. */
function keyPairOf(secretString: string | undefined, versionId?: string): KeyPair {
  if (secretString === undefined) throw new Error('the secret has no string value');
  let parsed: unknown;
  try {
    parsed = JSON.parse(secretString);
  } catch {
    throw new Error('the secret is not JSON');
  }
  const value = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  const { certificatePem, privateKeyPem, caCertificatePem } = value;
  if (
    typeof certificatePem !== 'string' ||
    typeof privateKeyPem !== 'string' ||
    typeof caCertificatePem !== 'string'
  )
    throw new Error('the secret lacks certificatePem, privateKeyPem or caCertificatePem');
  let leaf: X509Certificate;
  let ca: X509Certificate;
  try {
    leaf = new X509Certificate(certificatePem);
    ca = new X509Certificate(caCertificatePem);
  } catch {
    throw new Error('certificatePem or caCertificatePem is not a PEM certificate');
  }
  let matches: boolean;
  try {
    matches = leaf.checkPrivateKey(createPrivateKey(privateKeyPem));
  } catch {
    throw new Error('privateKeyPem is not a PEM private key');
  }
  if (!matches) throw new Error('privateKeyPem does not match certificatePem');
  // The proxy trusts the internal CA only: a leaf it did not sign would fail every handshake.
  if (!leaf.checkIssued(ca) || !leaf.verify(ca.publicKey))
    throw new Error('certificatePem is not issued by caCertificatePem');
  // The leaf alone: it is issued directly by the internal CA, the root the proxy trusts, and a server may
  // omit the self-signed root from its chain (RFC 8446 section 4.4.2).
  const crt = leaf.toString();
  return {
    versionId,
    crt,
    key: privateKeyPem,
    hash: createHash('sha256').update(crt).digest('hex').slice(0, 16),
  };
}

export class TlsSecretSync {
  private readonly core: CoreV1Api;
  private readonly now: () => number;
  private current: KeyPair | undefined;
  private readAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly opts: TlsSecretSyncOptions) {
    this.core = pooledKubeConfig(opts.kubeConfig).makeApiClient(CoreV1Api);
    this.now = opts.now ?? Date.now;
  }

  /**
   * Brings the Kubernetes Secret up to date; returns the hash it carries afterwards (undefined while it
   * does not exist) and whether it was written. `beforeWrite` throws when this replica no longer leads.
   * A Secrets Manager failure or a bad key pair is logged and leaves the Secret as it is: the endpoints
   * keep being reconciled.
   */
  async sync(beforeWrite: () => void): Promise<{ hash: string | undefined; written: boolean }> {
    const liveHash = (await this.readLive())?.metadata?.annotations?.[TLS_HASH_ANNOTATION];
    const fresh = this.now() - this.readAt < this.opts.refreshMs;
    if (this.current && fresh && liveHash === this.current.hash) return { hash: liveHash, written: false };
    let pair: KeyPair;
    try {
      pair = await this.read();
    } catch (error) {
      this.opts.logger?.warn(
        { secret: this.opts.keyPairSecretArn, reason: errorMessage(error) },
        'cannot sync the inference TLS key pair',
      );
      return { hash: liveHash, written: false };
    }
    if (pair.hash === liveHash) return { hash: liveHash, written: false };
    beforeWrite();
    await this.apply(pair);
    this.opts.logger?.info({ secret: this.opts.secretName, hash: pair.hash }, 'inference TLS Secret written');
    return { hash: pair.hash, written: true };
  }

  /** The key pair, parsed again only when Secrets Manager returns another version. */
  private async read(): Promise<KeyPair> {
    const out = await this.opts.secrets.send(
      new GetSecretValueCommand({ SecretId: this.opts.keyPairSecretArn }),
    );
    this.readAt = this.now();
    if (this.current && out.VersionId !== undefined && out.VersionId === this.current.versionId)
      return this.current;
    this.current = keyPairOf(out.SecretString, out.VersionId);
    return this.current;
  }

  private async readLive(): Promise<V1Secret | undefined> {
    try {
      return await this.core.readNamespacedSecret({
        name: this.opts.secretName,
        namespace: INFERENCE_NAMESPACE,
      });
    } catch (error) {
      if (kubeStatusOf(error)?.reason === 'NotFound') return undefined;
      throw error;
    }
  }

  /** Server-side apply (https://kubernetes.io/docs/reference/using-api/server-side-apply/). */
  private async apply(pair: KeyPair): Promise<void> {
    const body: V1Secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: this.opts.secretName,
        namespace: INFERENCE_NAMESPACE,
        labels: { [ENDPOINT_LABELS.managedBy]: ENDPOINT_LABELS.managedByValue },
        annotations: { [TLS_HASH_ANNOTATION]: pair.hash },
      },
      type: 'kubernetes.io/tls',
      data: {
        'tls.crt': Buffer.from(pair.crt).toString('base64'),
        'tls.key': Buffer.from(pair.key).toString('base64'),
      },
    };
    await this.core.patchNamespacedSecret(
      {
        name: this.opts.secretName,
        namespace: INFERENCE_NAMESPACE,
        body,
        fieldManager: FIELD_MANAGER,
        fieldValidation: 'Strict',
        force: true,
      },
      setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
    );
  }
}

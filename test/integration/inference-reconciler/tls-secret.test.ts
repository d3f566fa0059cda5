/**
 * The sidecars' certificate Secret: the reconciler copies the InferenceCertificate key pair from Secrets
 * Manager (mocked with aws-sdk-client-mock: no local server exists for it) into `gco-inference-tls` on
 * the Kubernetes API simulator, writes it only when the certificate changes, and rolls the model pods on
 * a renewal through the pod-template annotation.
 */
import { X509Certificate } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { connect, createServer } from 'node:tls';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { endpointServiceHost, INFERENCE_NAMESPACE } from '../../../contracts/inference-endpoints.js';
import type { KubeObject } from '../../../local/kube-api-simulator/index.js';
import { createLocalCa, type LocalCa } from '../../../local/tls.js';
import {
  endpointObjectName,
  EndpointTable,
  REGION,
  startCluster,
  startLocalDynamo,
  type LocalDynamo,
  type RegionCluster,
} from './harness.js';

const ARN = `arn:aws:secretsmanager:${REGION}:123456789012:secret:gco/inference-tls-AbCdEf`;
const HOST = '*.gco-inference.svc.cluster.local';
const HASH = 'gco.dev/inference-tls-hash';
const secrets = mockClient(SecretsManagerClient);

function keyPair(ca: LocalCa, issuer: LocalCa = ca): { value: string; cert: string; key: string } {
  const issued = issuer.issue([HOST]);
  return {
    value: JSON.stringify({
      certificatePem: issued.cert,
      privateKeyPem: issued.key,
      caCertificatePem: ca.cert,
    }),
    cert: issued.cert,
    key: issued.key,
  };
}

const hashOf = (o: KubeObject | undefined) =>
  (o?.metadata.annotations as Record<string, string> | undefined)?.[HASH];
const decode = (data: unknown, key: string) =>
  Buffer.from(((data ?? {}) as Record<string, string>)[key] ?? '', 'base64').toString('utf8');

/**
 * A TLS handshake the way the inference-proxy makes it (cluster/inference-proxy/src/upstream.ts: the
 * internal CA only, the Service host as server name), against a server holding the synced files.
 */
async function handshake(crt: string, key: string, ca: string, servername: string): Promise<string> {
  const server = createServer({ cert: crt, key }, (socket) => socket.end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await new Promise<string>((resolve) => {
      const port = (server.address() as AddressInfo).port;
      const socket = connect({ host: '127.0.0.1', port, ca, servername, rejectUnauthorized: false }, () => {
        resolve(socket.authorized ? 'authorized' : String(socket.authorizationError));
        socket.destroy();
      });
      socket.on('error', (error) => resolve(error.message));
    });
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

describe('inference reconciler: TLS Secret sync', () => {
  let dynamo: LocalDynamo;
  let cluster: RegionCluster;
  let table: EndpointTable;
  const ca = createLocalCa('inference test CA');

  beforeEach(async () => {
    secrets.reset();
    dynamo = await startLocalDynamo();
    cluster = await startCluster(REGION, dynamo);
    table = new EndpointTable(dynamo);
    await table.create('tiny');
  });

  afterEach(async () => {
    await cluster.close();
    await dynamo.close();
  });

  const tlsSecret = (): KubeObject | undefined =>
    cluster.sim
      .list('v1', 'Secret', INFERENCE_NAMESPACE)
      .find((s) => s.metadata.name === 'gco-inference-tls');
  const podAnnotation = (): string | undefined => {
    const deployment = cluster
      .objects('Deployment')
      .find((d) => d.metadata.name === endpointObjectName('tiny', 'primary'));
    const template = (
      deployment?.spec as { template?: { metadata?: { annotations?: Record<string, string> } } }
    )?.template;
    return template?.metadata?.annotations?.[HASH];
  };
  const secretWrites = () =>
    cluster.requests.filter((r) => r.method === 'PATCH' && r.path.includes('/secrets/gco-inference-tls'));
  const reads = () => secrets.commandCalls(GetSecretValueCommand).length;

  it('creates the Secret from the key pair, rewrites it only on a renewal, and rolls the pods then', async () => {
    const first = keyPair(ca);
    secrets.on(GetSecretValueCommand).resolves({ SecretString: first.value, VersionId: 'v1' });
    const rec = cluster.newReconciler('replica-a', { tlsKeyPairSecretArn: ARN, tlsRefreshMs: 0 });

    await rec.reconciler.pass();
    const created = tlsSecret();
    expect(created).toMatchObject({
      type: 'kubernetes.io/tls',
      metadata: { labels: { 'app.kubernetes.io/managed-by': 'gco-inference-reconciler' } },
    });
    expect(decode(created?.data, 'tls.crt')).toBe(new X509Certificate(first.cert).toString());
    expect(decode(created?.data, 'tls.key')).toBe(first.key);
    // What nginx would serve passes the proxy's verification for the primary and the canary Service.
    for (const role of ['primary', 'canary'] as const) {
      const host = endpointServiceHost('tiny', role);
      expect(
        await handshake(decode(created?.data, 'tls.crt'), decode(created?.data, 'tls.key'), ca.cert, host),
      ).toBe('authorized');
    }
    // ... and only for them: the model key pair cannot impersonate a platform service.
    expect(
      await handshake(
        decode(created?.data, 'tls.crt'),
        decode(created?.data, 'tls.key'),
        ca.cert,
        'cost-monitor.gco-system.svc',
      ),
    ).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
    const firstHash = hashOf(created);
    expect(firstHash).toMatch(/^[0-9a-f]{16}$/);
    expect(podAnnotation()).toBe(firstHash);
    expect(secretWrites()).toHaveLength(1);
    expect(secrets.commandCalls(GetSecretValueCommand)[0]?.args[0].input).toEqual({ SecretId: ARN });

    // Unchanged value (same version, then a new version with the same content): read, never written.
    await rec.reconciler.pass();
    secrets.on(GetSecretValueCommand).resolves({ SecretString: first.value, VersionId: 'v1-again' });
    await rec.reconciler.pass();
    expect(reads()).toBe(3);
    expect(secretWrites()).toHaveLength(1);
    const deploymentApplies = cluster.applies().filter((a) => a.startsWith('Deployment/'));
    expect(deploymentApplies).toHaveLength(1);

    // Renewed in place (new key pair, new version): the Secret and the pod template follow.
    const renewed = keyPair(ca);
    secrets.on(GetSecretValueCommand).resolves({ SecretString: renewed.value, VersionId: 'v2' });
    await rec.reconciler.pass();
    const updated = tlsSecret();
    expect(decode(updated?.data, 'tls.key')).toBe(renewed.key);
    const renewedHash = hashOf(updated);
    expect(renewedHash).not.toBe(firstHash);
    expect(podAnnotation()).toBe(renewedHash);
    expect(secretWrites()).toHaveLength(2);
    expect(cluster.applies().filter((a) => a.startsWith('Deployment/'))).toHaveLength(2);
  });

  it('reads Secrets Manager at most once per refresh interval while the Secret is as written', async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: keyPair(ca).value, VersionId: 'v1' });
    const rec = cluster.newReconciler('replica-a', { tlsKeyPairSecretArn: ARN, tlsRefreshMs: 3_600_000 });
    await rec.reconciler.pass();
    await rec.reconciler.pass();
    expect(reads()).toBe(1);
    // Someone deleted the Secret: recreated at the next pass, whatever the interval.
    const gone = await fetch(
      `${cluster.sim.url}/api/v1/namespaces/${INFERENCE_NAMESPACE}/secrets/gco-inference-tls`,
      {
        method: 'DELETE',
      },
    );
    expect(gone.status).toBe(200);
    expect(tlsSecret()).toBeUndefined();
    await rec.reconciler.pass();
    expect(tlsSecret()).toBeDefined();
    expect(secretWrites()).toHaveLength(2);
  });

  it.each([
    ['not JSON', () => 'not json'],
    ['a field missing', () => JSON.stringify({ certificatePem: 'x', privateKeyPem: 'y' })],
    [
      'a key of another certificate',
      () => {
        const a = keyPair(ca);
        const b = keyPair(ca);
        return JSON.stringify({ ...JSON.parse(a.value), privateKeyPem: b.key });
      },
    ],
    ['a certificate of another CA', () => keyPair(ca, createLocalCa('someone else')).value],
  ])('writes no Secret from a key pair with %s, and still reconciles the endpoints', async (_, value) => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: value(), VersionId: 'bad' });
    const rec = cluster.newReconciler('replica-a', { tlsKeyPairSecretArn: ARN, tlsRefreshMs: 0 });
    await rec.reconciler.pass();
    expect(tlsSecret()).toBeUndefined();
    expect(secretWrites()).toHaveLength(0);
    expect(cluster.objects('Deployment')).toHaveLength(1);
    expect(podAnnotation()).toBeUndefined();
  });

  it('keeps the Secret it has when Secrets Manager fails', async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: keyPair(ca).value, VersionId: 'v1' });
    const rec = cluster.newReconciler('replica-a', { tlsKeyPairSecretArn: ARN, tlsRefreshMs: 0 });
    await rec.reconciler.pass();
    const hash = hashOf(tlsSecret());
    secrets.on(GetSecretValueCommand).rejects(new Error('AccessDeniedException'));
    await rec.reconciler.pass();
    expect(hashOf(tlsSecret())).toBe(hash);
    expect(podAnnotation()).toBe(hash);
  });

  it('does nothing with TLS when no key-pair secret is configured (the local platform)', async () => {
    const rec = cluster.newReconciler('replica-a');
    await rec.reconciler.pass();
    expect(reads()).toBe(0);
    expect(tlsSecret()).toBeUndefined();
    expect(cluster.objects('Deployment')).toHaveLength(1);
    expect(podAnnotation()).toBeUndefined();
  });
});

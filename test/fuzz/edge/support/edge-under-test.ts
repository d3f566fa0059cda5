/**
 * The edge of the local platform — the global and regional API Gateway emulators with the real proxy
 * and aggregator Lambdas, SigV4, the web ACL's platform rules, the accelerator and each region's ALB
 * router, wired by local/edge.ts exactly as `npm start` wires them — in front of a recording backend
 * instead of the cluster services. The APIs treat `application/octet-stream` and `image/*` as binary
 * media types (the stacks configure none), so generated bodies of those types arrive base64-encoded.
 */
import { randomBytes } from 'node:crypto';
import type { PlatformConfig } from '../../../../lib/config.js';
import { aggregatorRoleName } from '../../../../lib/names.js';
import { CLUSTER_SERVICES } from '../../../../contracts/routing.js';
import { startAccelerator } from '../../../../local/accelerator.js';
import { startAlbRouter, type AlbRouter } from '../../../../local/alb-router.js';
import { startAwsStandIns } from '../../../../local/aws-stand-ins/index.js';
import { createLocalCredentials } from '../../../../local/credentials.js';
import { seedEdgeResources, startLocalEdge, type LocalEdge } from '../../../../local/edge.js';
import { LOCAL_ACCOUNT_ID, localConfig } from '../../../../local/platform.js';
import { createLocalCa } from '../../../../local/tls.js';
import { signedRequest, type Reply, type SignedOptions } from '../../../integration/local/support.js';
import { startRecordingBackend, type RecordingBackend } from './recording-backend.js';

/** Media types the edge APIs under test base64-encode (the proxies refuse such bodies). */
export const BINARY_MEDIA_TYPES: readonly string[] = ['application/octet-stream', 'image/*'];

export type EdgeCall = Omit<SignedOptions, 'region' | 'credentials'>;

export interface EdgeUnderTest {
  readonly config: PlatformConfig;
  readonly backend: RecordingBackend;
  /** A SigV4-signed call to the global API. */
  global(call: EdgeCall): Promise<Reply>;
  /** A SigV4-signed call to a region's regional API. */
  regional(region: string, call: EdgeCall): Promise<Reply>;
  /** Base URLs with the stage, for unsigned or raw requests. */
  readonly urls: { global: string; regional: Readonly<Record<string, string>> };
  close(): Promise<void>;
}

export async function startEdgeUnderTest(regions: readonly string[] = ['us-east-1']): Promise<EdgeUnderTest> {
  // Generated runs all come from 127.0.0.1: the per-IP rate rule would otherwise end the run early.
  const config = localConfig(regions, { waf: { rate_limit_per_ip: 1_000_000 } });
  const signingKey = randomBytes(32).toString('hex');
  const ca = createLocalCa('fuzz edge CA');
  const credentials = createLocalCredentials({
    partition: config.partition.partition,
    accountId: LOCAL_ACCOUNT_ID,
    aggregatorRoleName: aggregatorRoleName(config),
  });
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const c of closers.reverse()) await c().catch(() => undefined);
  };
  try {
    const aws = await startAwsStandIns({ accountId: LOCAL_ACCOUNT_ID });
    closers.push(() => aws.close());
    const backend = await startRecordingBackend(signingKey);
    closers.push(() => backend.close());
    const certificate = ca.issue([config.backendHostname]);
    const targets = Object.fromEntries(CLUSTER_SERVICES.map((service) => [service, backend.url]));
    const routers: Record<string, AlbRouter> = {};
    for (const region of regions) {
      const router = await startAlbRouter({ certificate, targets });
      closers.push(() => router.close());
      routers[region] = router;
    }
    const accelerator = await startAccelerator({
      endpoints: () =>
        regions.map((region) => ({ region, host: '127.0.0.1', port: routers[region]?.port ?? 0 })),
    });
    closers.push(() => accelerator.close());
    const { signingKeySecretArn, albs } = seedEdgeResources({
      config,
      aws,
      signingKey,
      albPorts: Object.fromEntries(regions.map((region) => [region, routers[region]?.port ?? 0])),
    });
    const edge: LocalEdge = await startLocalEdge({
      config,
      accountId: LOCAL_ACCOUNT_ID,
      credentials,
      aws,
      caPem: ca.cert,
      signingKeySecretArn,
      accelerator: {
        dnsName: `a${randomBytes(8).toString('hex')}.awsglobalaccelerator.com`,
        port: accelerator.port,
      },
      albs,
      logs: 'silent',
      binaryMediaTypes: BINARY_MEDIA_TYPES,
    });
    closers.push(() => edge.close());
    const developer = credentials.developer;
    return {
      config,
      backend,
      global: (call) =>
        signedRequest(edge.global.url, { ...call, region: config.globalRegion, credentials: developer }),
      regional: (region, call) => {
        const api = edge.regional[region];
        if (api === undefined) throw new Error(`no regional API in ${region}`);
        return signedRequest(api.url, { ...call, region, credentials: developer });
      },
      urls: {
        global: edge.global.url,
        regional: Object.fromEntries(Object.entries(edge.regional).map(([r, api]) => [r, api.url])),
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

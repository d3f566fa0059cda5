/**
 * cost-monitor: scheduled and on-demand cost allocation reports of one region (docs/cost.md). Internal
 * only: reached by manifest-processor over HTTPS on 8443, confined by a NetworkPolicy, and by design
 * without authentication middleware of its own (`envelope: false`).
 */
import { awsClientConfig } from '../../../contracts/runtime/aws-clients.js';
import { hostname } from 'node:os';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import type { Logger } from 'pino';
import { EnvReader } from '../../../contracts/env/reader.js';
import { loadEmfConfig } from '../../shared/emf-config.js';
import { EmfPublisher } from '../../shared/emf-publisher.js';
import { createLogger } from '../../shared/logger.js';
import { replicaId } from '../../shared/replica-id.js';
import { createService, type Service } from '../../shared/service.js';
import { WindowClaims } from './claims.js';
import { loadCostMonitorConfig, type CostMonitorConfig } from './config.js';
import { SERVICE_NAME, SERVICE_VERSION } from './identity.js';
import { OpenCostClient } from './opencost.js';
import { ReportService } from './reports.js';
import { INTERNAL_PREFIX, internalRoutes } from './routes.js';
import { ReportScheduler } from './scheduler.js';
import { ReportStore } from './store.js';

export interface CostMonitorDeps {
  config: CostMonitorConfig;
  s3: S3Client;
  dynamo: DynamoDBClient;
  /** PEM key and certificate: serve HTTPS (production: 8443). Plain HTTP without it (local runs). */
  https?: { key: string | Buffer; cert: string | Buffer };
  clock?: () => Date;
  fetch?: typeof fetch;
  logger?: Logger;
  /** Identifies this replica in window claims; defaults to the host (pod) name plus a random suffix. */
  instanceId?: string;
  scheduler?: { tickMs?: number; leaseSeconds?: number; staleAfterMs?: number; autoStart?: boolean };
  /** CostReportsWritten / CostReportFailures (EMF); started with the scheduler, flushed when it stops. */
  metrics?: EmfPublisher;
}

export interface CostMonitor extends Service {
  readonly reports: ReportService;
  readonly scheduler: ReportScheduler;
  readonly claims: WindowClaims;
}

export async function createCostMonitor(deps: CostMonitorDeps): Promise<CostMonitor> {
  const { config } = deps;
  const clock = deps.clock ?? (() => new Date());
  const owner = deps.instanceId ?? `${hostname()}-${Math.random().toString(16).slice(2, 10)}`;
  const opencost = new OpenCostClient({
    baseUrl: config.opencostUrl,
    timeoutMs: config.opencostTimeoutMs,
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
  });
  const store = new ReportStore(deps.s3, config.bucket, config.region);
  const reports = new ReportService({
    region: config.region,
    cluster: config.clusterName,
    opencost,
    store,
    clock,
  });
  const claims = new WindowClaims(deps.dynamo, {
    table: config.table,
    region: config.region,
    owner,
    ...(deps.scheduler?.leaseSeconds ? { leaseSeconds: deps.scheduler.leaseSeconds } : {}),
  });
  // One logger for the app and the scheduler (the framework would otherwise create its own).
  const log = deps.logger ?? createLogger(SERVICE_NAME, SERVICE_VERSION);
  const scheduler = new ReportScheduler({
    intervalMinutes: config.intervalMinutes,
    settleMinutes: config.settleMinutes,
    claims,
    write: (window) => reports.ensureScheduled(window),
    clock,
    ...(deps.scheduler?.tickMs ? { tickMs: deps.scheduler.tickMs } : {}),
    ...(deps.scheduler?.staleAfterMs ? { staleAfterMs: deps.scheduler.staleAfterMs } : {}),
    ...(deps.metrics ? { metrics: deps.metrics } : {}),
    log,
  });
  let closed = false;

  const service = await createService({
    name: SERVICE_NAME,
    version: SERVICE_VERSION,
    description: 'Scheduled and on-demand cost allocation reports of one region (internal)',
    envelope: false,
    ...(deps.https ? { https: deps.https } : {}),
    logger: log,
    readiness: {
      monitor: () => !closed,
      scheduled_reports: () => scheduler.alive,
    },
    onClose: async () => {
      closed = true;
      await scheduler.stop();
      await deps.metrics?.stop();
    },
    routes: async (app) => {
      await app.register(internalRoutes, { prefix: INTERNAL_PREFIX, config, reports, scheduler, clock });
    },
  });
  if (deps.scheduler?.autoStart !== false) scheduler.start();
  deps.metrics?.start();
  return Object.assign(service, { reports, scheduler, claims });
}

/** What a caller may supply instead of what the environment would give (tests, the local platform). */
export type CostMonitorOverrides = Partial<Pick<CostMonitorDeps, 's3' | 'dynamo' | 'https' | 'logger'>>;

/** cost-monitor as its environment describes it: main.ts and the local platform both start it here. */
export async function createCostMonitorFromEnv(
  env: NodeJS.ProcessEnv,
  overrides: CostMonitorOverrides = {},
): Promise<CostMonitor> {
  const read = new EnvReader(env);
  const config = loadCostMonitorConfig(read);
  // The pod name identifies the replica holding a window claim.
  const instanceId = read.optional('POD_NAME') ?? hostname();
  const emf = loadEmfConfig(read);
  const metricsStream = replicaId(read);
  read.finish();
  const logger = overrides.logger ?? createLogger(SERVICE_NAME, SERVICE_VERSION);
  // Bounded SDK calls: a hung dependency must surface as a failed tick, not a stuck scheduler.
  // One config per client: a client's destroy() closes its request handler.
  const aws = () =>
    awsClientConfig({
      component: 'cost-monitor',
      region: config.region,
      connectionTimeoutMs: 5_000,
      requestTimeoutMs: 30_000,
    });
  return createCostMonitor({
    config,
    s3: overrides.s3 ?? new S3Client(aws()),
    dynamo: overrides.dynamo ?? new DynamoDBClient(aws()),
    instanceId,
    ...(overrides.https ? { https: overrides.https } : {}),
    logger,
    metrics: new EmfPublisher({
      config: emf,
      streamName: metricsStream,
      logger: logger.child({ component: 'emf-publisher' }),
    }),
  });
}

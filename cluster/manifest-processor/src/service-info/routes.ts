/** What manifest-processor says about itself: GET /, /api/v1/health, /api/v1/status, /api/v1/policy. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { MANIFEST_PROCESSOR_RESPONSES as RESPONSES } from '../../../../contracts/api/manifest-processor.js';
import type { ServiceApp } from '../../../shared/service.js';
import type { CentralTableFeatures } from '../central-table-features.js';
import type { ProcessorContext } from '../context.js';
import { SERVICE_NAME, SERVICE_VERSION } from '../identity.js';
import { buildPolicyReport } from '../policy/index.js';

/** Templates, webhooks and the queue worker as /api/v1/status reports them; a failing table is reported, not thrown. */
async function centralStatus(central: CentralTableFeatures) {
  const settle = async <T>(read: () => Promise<T>) => {
    try {
      return await read();
    } catch {
      return null;
    }
  };
  const [templates, webhooks] = await Promise.all([
    settle(() => central.templates.list()),
    settle(() => central.webhooks.store.list()),
  ]);
  return {
    templates: templates
      ? { count: templates.length, names: templates.map((t) => t.name).sort() }
      : { status: 'unavailable' },
    webhooks: webhooks
      ? { count: webhooks.length, events: [...new Set(webhooks.flatMap((w) => w.events))].sort() }
      : { status: 'unavailable' },
    queue: { region: central.queue.config.region, worker_enabled: central.queue.config.workerEnabled },
  };
}

/** The cluster and region every answer names. */
const where = (ctx: ProcessorContext) => ({ cluster: ctx.config.clusterName, region: ctx.config.region });

function rootRoute(app: ServiceApp, ctx: ProcessorContext): void {
  app.get(
    '/',
    {
      schema: {
        operationId: 'root__get',
        summary: 'Service information and API overview',
        response: RESPONSES.root,
      },
    },
    async () => ({
      service: SERVICE_NAME,
      version: SERVICE_VERSION,
      ...where(ctx),
      description: 'Submits, validates and deletes cluster manifests; manages jobs',
      endpoints: {
        manifests: '/api/v1/manifests',
        validate: '/api/v1/manifests/validate',
        jobs: '/api/v1/jobs',
        policy: '/api/v1/policy',
        status: '/api/v1/status',
        health: '/api/v1/health',
        openapi: '/openapi.json',
      },
    }),
  );
}

function healthRoute(app: ServiceApp, ctx: ProcessorContext): void {
  app.get(
    '/api/v1/health',
    {
      schema: {
        operationId: 'health_check_api_v1_health_get',
        summary: '200 when the orchestrator API answers, 503 otherwise',
        response: RESPONSES.health,
      },
    },
    async (_request, reply) => {
      const ok = await ctx.jobs.reachable();
      return reply.code(ok ? 200 : 503).send({
        status: ok ? 'healthy' : 'unhealthy',
        service: SERVICE_NAME,
        ...where(ctx),
        kubernetes_api: ok ? 'ok' : 'unavailable',
        timestamp: new Date().toISOString(),
      });
    },
  );
}

function statusRoute(app: ServiceApp, ctx: ProcessorContext): void {
  app.get(
    '/api/v1/status',
    {
      schema: {
        operationId: 'get_service_status_api_v1_status_get',
        summary: 'Detailed service information',
        response: RESPONSES.status,
      },
    },
    async () => {
      const policy = ctx.policy.config;
      return {
        service: SERVICE_NAME,
        version: SERVICE_VERSION,
        ...where(ctx),
        kubernetes_api: (await ctx.jobs.reachable()) ? 'ok' : 'unavailable',
        allowed_namespaces: policy.allowedNamespaces,
        default_job_namespace: ctx.config.defaultJobNamespace,
        resource_limits: {
          max_cpu_cores: policy.maxCpuCores,
          max_memory_bytes: policy.maxMemoryBytes,
          max_gpus: policy.maxGpus,
        },
        allowed_kinds: policy.allowedKinds,
        // The global status route merges these per region (docs/aggregator.md).
        ...(ctx.centralTables ? await centralStatus(ctx.centralTables) : {}),
        timestamp: new Date().toISOString(),
      };
    },
  );
}

function policyRoute(app: ServiceApp, ctx: ProcessorContext): void {
  app.get(
    '/api/v1/policy',
    {
      schema: {
        operationId: 'get_job_validation_policy_api_v1_policy_get',
        summary: 'The validation policy this processor enforces',
        response: RESPONSES.policy,
      },
    },
    async () => buildPolicyReport(ctx.policy, ctx.kubeConfig),
  );
}

export const serviceInfoRoutes: FastifyPluginAsyncTypebox<ProcessorContext> = async (app, ctx) => {
  for (const route of [rootRoute, healthRoute, statusRoute, policyRoute]) route(app, ctx);
};

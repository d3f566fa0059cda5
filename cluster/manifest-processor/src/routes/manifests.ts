/** POST /api/v1/manifests, POST /api/v1/manifests/validate, GET|DELETE /api/v1/manifests/{namespace}/{name}. */
import type { ServiceApp } from '../../../shared/service.js';
import { assertKindAllowed, assertNamespaceAllowed, type ProcessorContext } from '../context.js';
import { JobPath, ManifestSubmissionAPIRequest, ResourceQuery } from '../schemas.js';

export function manifestRoutes(app: ServiceApp, ctx: ProcessorContext): void {
  app.post(
    '/api/v1/manifests',
    {
      schema: {
        operationId: 'submit_manifests_api_v1_manifests_post',
        summary: 'Validate and apply manifests (200 when every resource applied, 400 when any failed)',
        body: ManifestSubmissionAPIRequest,
      },
    },
    async (request, reply) => {
      const { manifests, namespace, dry_run, validate } = request.body;
      const report = await ctx.applier.apply(manifests, { namespace, dryRun: dry_run, validate });
      request.log.info(
        {
          manifests: manifests.length,
          dry_run,
          validate,
          success: report.success,
          outcomes: report.resources.map((r) => r.status),
        },
        'manifest submission',
      );
      return reply.code(report.success ? 200 : 400).send(report);
    },
  );

  app.post(
    '/api/v1/manifests/validate',
    {
      schema: {
        operationId: 'validate_manifests_api_v1_manifests_validate_post',
        summary: 'Validate manifests (policy + server-side dry run) without applying; 200 with `valid`',
        body: ManifestSubmissionAPIRequest,
      },
    },
    async (request) => {
      const { manifests, namespace, validate } = request.body;
      const report = await ctx.applier.apply(manifests, { namespace, dryRun: true, validate });
      return { valid: report.success, ...report };
    },
  );

  app.get(
    '/api/v1/manifests/:namespace/:name',
    {
      schema: {
        operationId: 'get_resource_status_api_v1_manifests__namespace___name__get',
        summary: 'Status of an applied resource',
        params: JobPath,
        querystring: ResourceQuery,
      },
    },
    async (request) => {
      const { namespace, name } = request.params;
      const { api_version, kind } = request.query;
      assertNamespaceAllowed(ctx, namespace);
      assertKindAllowed(ctx, api_version, kind);
      return ctx.resources.status({ apiVersion: api_version, kind, namespace, name });
    },
  );

  app.delete(
    '/api/v1/manifests/:namespace/:name',
    {
      schema: {
        operationId: 'delete_resource_api_v1_manifests__namespace___name__delete',
        summary: 'Delete an applied resource (background propagation)',
        params: JobPath,
        querystring: ResourceQuery,
      },
    },
    async (request) => {
      const { namespace, name } = request.params;
      const { api_version, kind } = request.query;
      assertNamespaceAllowed(ctx, namespace);
      assertKindAllowed(ctx, api_version, kind);
      return ctx.resources.delete({ apiVersion: api_version, kind, namespace, name });
    },
  );
}

/**
 * The /api/v1/manifests operations (docs/manifest-processor.md): submit and validate manifests, read and
 * delete an applied resource. The `/{namespace}/{name}` scope's preHandler confines it to the allowed
 * namespaces; its handlers then check the kind.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { MANIFEST_PROCESSOR_RESPONSES as RESPONSES } from '../../../../contracts/api/manifest-processor.js';
import { assertKindAllowed, namespaceGuard, type ProcessorContext } from '../context.js';
import type { ResourceRef } from '../resources.js';
import { JobPath, ManifestSubmissionAPIRequest, ResourceQuery } from '../schemas.js';
import { duplicateFieldsOf } from './duplicate-fields.js';

export const MANIFESTS_PREFIX = '/api/v1/manifests';

export const manifestRoutes: FastifyPluginAsyncTypebox<ProcessorContext> = async (app, ctx) => {
  app.post(
    '',
    {
      schema: {
        operationId: 'submit_manifests_api_v1_manifests_post',
        summary: 'Validate and apply manifests (200 when every resource applied, 400 when any failed)',
        body: ManifestSubmissionAPIRequest,
        response: RESPONSES.submitManifests,
      },
    },
    async (request, reply) => {
      const { manifests, namespace, dry_run, validate } = request.body;
      const report = await ctx.applier.apply(manifests, {
        namespace,
        dryRun: dry_run,
        validate,
        duplicateFields: duplicateFieldsOf(request.rawBody),
      });
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
    '/validate',
    {
      schema: {
        operationId: 'validate_manifests_api_v1_manifests_validate_post',
        summary: 'Validate manifests (policy + server-side dry run) without applying; 200 with `valid`',
        body: ManifestSubmissionAPIRequest,
        response: RESPONSES.validateManifests,
      },
    },
    async (request) => {
      const { manifests, namespace, validate } = request.body;
      const report = await ctx.applier.apply(manifests, {
        namespace,
        dryRun: true,
        validate,
        duplicateFields: duplicateFieldsOf(request.rawBody),
      });
      return { valid: report.success, ...report };
    },
  );

  await app.register(appliedResourceRoutes, { ...ctx, prefix: '/:namespace/:name' });
};

/** Status and deletion of one applied resource, named by namespace, name, api_version and kind. */
const appliedResourceRoutes: FastifyPluginAsyncTypebox<ProcessorContext> = async (app, ctx) => {
  app.addHook('preHandler', namespaceGuard(ctx.policy));

  const operations = [
    {
      method: 'GET',
      operationId: 'get_resource_status_api_v1_manifests__namespace___name__get',
      summary: 'Status of an applied resource',
      response: RESPONSES.resourceStatus,
      run: (ref: ResourceRef) => ctx.resources.status(ref),
    },
    {
      method: 'DELETE',
      operationId: 'delete_resource_api_v1_manifests__namespace___name__delete',
      summary: 'Delete an applied resource (background propagation)',
      response: RESPONSES.deleteResource,
      run: (ref: ResourceRef) => ctx.resources.delete(ref),
    },
  ] as const;
  for (const { method, operationId, summary, response, run } of operations) {
    app.route({
      method,
      url: '',
      schema: { operationId, summary, params: JobPath, querystring: ResourceQuery, response },
      handler: async (request) => {
        const { api_version, kind } = request.query;
        assertKindAllowed(ctx.policy, api_version, kind);
        const { namespace, name } = request.params;
        return run({ apiVersion: api_version, kind, namespace, name });
      },
    });
  }
};

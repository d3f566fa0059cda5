/**
 * GET|POST /api/v1/templates, GET|DELETE /api/v1/templates/{name} and
 * POST /api/v1/jobs/from-template/{name}. A job made from a template takes the same road as a submission:
 * the front-door policy and the orchestrator's server-side dry run (ManifestApplier), then a real apply.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { TEMPLATE_RESPONSES as RESPONSES } from '../../../../contracts/api/manifest-processor-central.js';
import { HttpError, RequestValidationError, type ValidationErrorItem } from '../../../shared/errors.js';
import type { ServiceApp } from '../../../shared/service.js';
import type { ManifestApplier } from '../apply.js';
import { kubernetesJobView } from '../job-view.js';
import type { JobsService } from '../jobs/service.js';
import { findTooDeep, type ValidationPolicy } from '../policy/index.js';
import { formatPath } from '../policy/json.js';
import {
  parameterValues,
  renderTemplate,
  RESERVED_PARAMETERS,
  scanPlaceholders,
  type PathSegment,
  type RenderProblem,
} from './placeholders.js';
import { JobFromTemplateRequest, JobTemplateRequest, TemplatePath } from './schemas.js';
import type { StoredTemplate, TemplateStore } from './store.js';

/**
 * Label and annotation naming the template of every job created from one. The annotation is always set;
 * the label (selectable) only when the template's name is a valid label value, which any name of 1–63
 * characters need not be.
 */
const TEMPLATE_LABEL = 'gco.dev/template';
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

export interface TemplateRouteDeps {
  templates: TemplateStore;
  applier: Pick<ManifestApplier, 'apply'>;
  jobs: Pick<JobsService, 'read'>;
  policy: ValidationPolicy;
}

function templateView(t: StoredTemplate) {
  return { ...t, placeholders: scanPlaceholders(t.manifest).names };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Bounds nesting before anything recursive walks the value; the rendered manifest is re-checked by the policy. */
function depthItems(value: unknown, maxDepth: number, loc: PathSegment[]): ValidationErrorItem[] {
  const path = findTooDeep(value, maxDepth);
  if (!path) return [];
  return [
    {
      loc: [...loc, ...path],
      msg: `Value error, nesting deeper than ${maxDepth} levels is not allowed`,
      type: 'value_error',
    },
  ];
}

/**
 * `{{name}}` and `{{namespace}}` are the request's job name and namespace. A template may list them
 * among its defaults (the request's fields supersede them), but an override that disagrees with the
 * request's own field cannot be honoured both ways: that is a 422, never a silent choice.
 */
function conflictItems(
  parameters: Record<string, unknown> | null | undefined,
  fields: { name: string; namespace: string },
): ValidationErrorItem[] {
  return RESERVED_PARAMETERS.filter(
    (key) => parameters !== null && parameters !== undefined && Object.hasOwn(parameters, key),
  )
    .filter((key) => parameters?.[key] !== fields[key as keyof typeof fields])
    .map((key) => ({
      loc: ['body', 'parameters', key],
      msg: `Value error, {{${key}}} is always the request's ${key} (${fields[key as keyof typeof fields]}): leave ${key} out of parameters or give it the same value`,
      type: 'value_error',
      input: parameters?.[key],
    }));
}

/** Checks a template can ever yield a batch/v1 Job before it is stored. */
function templateItems(manifest: Record<string, unknown>, maxDepth: number): ValidationErrorItem[] {
  const items: ValidationErrorItem[] = [];
  const deep = depthItems(manifest, maxDepth, ['body', 'manifest']);
  if (deep.length > 0) return deep; // the placeholder scan below recurses
  for (const [field, expected] of [
    ['apiVersion', 'batch/v1'],
    ['kind', 'Job'],
  ] as const) {
    if (manifest[field] !== expected) {
      items.push({
        loc: ['body', 'manifest', field],
        msg: `Input should be '${expected}' (templates describe batch/v1 Jobs; placeholders are not allowed here)`,
        type: 'literal_error',
        input: manifest[field] ?? null,
        ctx: { expected: `'${expected}'` },
      });
    }
  }
  for (const path of scanPlaceholders(manifest).keysWithPlaceholders) {
    items.push({
      loc: ['body', 'manifest', ...path],
      msg: 'Value error, placeholders are not allowed in object keys',
      type: 'value_error',
    });
  }
  return items;
}

function problemItem(problem: RenderProblem): ValidationErrorItem {
  switch (problem.kind) {
    case 'missing':
      return {
        loc: ['body', 'parameters', problem.name],
        msg: `Field required: template placeholder {{${problem.name}}} (at manifest.${formatPath(problem.path)}) has no value`,
        type: 'missing',
        input: null,
      };
    case 'not_scalar':
      return {
        loc: ['body', 'parameters', problem.name],
        msg: `Value error, {{${problem.name}}} is used inside a string (at manifest.${formatPath(problem.path)}), so its value must be a string, number or boolean, not ${problem.valueType}`,
        type: 'value_error',
      };
    case 'too_large':
      return {
        loc: ['body', 'parameters'],
        msg: `Value error, substituted values would add more than ${problem.limit} bytes to the manifest`,
        type: 'value_error',
      };
  }
}

/** Job name, namespace and the template label come from the request, whatever the template says. */
function finalise(
  manifest: Record<string, unknown>,
  job: { name: string; namespace: string; template: string },
): Record<string, unknown> {
  const metadata = isRecord(manifest.metadata) ? { ...manifest.metadata } : {};
  delete metadata.generateName;
  metadata.name = job.name;
  metadata.namespace = job.namespace;
  if (LABEL_VALUE.test(job.template) && (metadata.labels === undefined || isRecord(metadata.labels))) {
    metadata.labels = { ...(metadata.labels ?? {}), [TEMPLATE_LABEL]: job.template };
  }
  if (metadata.annotations === undefined || isRecord(metadata.annotations)) {
    metadata.annotations = { ...(metadata.annotations ?? {}), [TEMPLATE_LABEL]: job.template };
  }
  return { ...manifest, metadata };
}

/** Templates live under /api/v1/templates; jobs are made from them under /api/v1/jobs/from-template. */
export const TEMPLATES_PREFIX = '/api/v1';

function listRoute(app: ServiceApp, deps: TemplateRouteDeps): void {
  app.get(
    '/templates',
    {
      schema: {
        operationId: 'list_templates_api_v1_templates_get',
        summary: 'All job templates',
        response: RESPONSES.list,
      },
    },
    async () => {
      const templates = (await deps.templates.list()).map(templateView);
      return { templates, count: templates.length };
    },
  );
}

function createRoute(app: ServiceApp, deps: TemplateRouteDeps): void {
  const maxDepth = deps.policy.config.maxDepth;
  app.post(
    '/templates',
    {
      schema: {
        operationId: 'create_template_api_v1_templates_post',
        summary: 'Create a job template (409 when the name is taken)',
        body: JobTemplateRequest,
        response: RESPONSES.create,
      },
    },
    async (request) => {
      const { name, manifest, description, parameters } = request.body;
      const items = [
        ...templateItems(manifest, maxDepth),
        ...depthItems(parameters ?? null, maxDepth, ['body', 'parameters']),
      ];
      if (items.length > 0) throw new RequestValidationError(items);
      const created = await deps.templates.create({
        name,
        manifest,
        description: description ?? null,
        parameters: parameters ?? null,
      });
      request.log.info({ template: name }, 'template created');
      return templateView(created);
    },
  );
}

function getRoute(app: ServiceApp, deps: TemplateRouteDeps): void {
  app.get(
    '/templates/:name',
    {
      schema: {
        operationId: 'get_template_api_v1_templates__name__get',
        summary: 'One job template',
        params: TemplatePath,
        response: RESPONSES.get,
      },
    },
    async (request) => {
      const template = await deps.templates.get(request.params.name);
      if (!template) throw new HttpError(404, `Template ${request.params.name} not found`);
      return templateView(template);
    },
  );
}

function deleteRoute(app: ServiceApp, deps: TemplateRouteDeps): void {
  app.delete(
    '/templates/:name',
    {
      schema: {
        operationId: 'delete_template_api_v1_templates__name__delete',
        summary: 'Delete a job template (jobs already created from it are untouched)',
        params: TemplatePath,
        response: RESPONSES.delete,
      },
    },
    async (request) => {
      const { name } = request.params;
      if (!(await deps.templates.delete(name))) throw new HttpError(404, `Template ${name} not found`);
      request.log.info({ template: name }, 'template deleted');
      return { deleted: true, name };
    },
  );
}

/**
 * The manifest a job from a template is created with: the request's parameters checked, the template
 * rendered with them, then named by the request. Throws the 422 of any problem.
 */
function renderJob(
  template: StoredTemplate,
  templateName: string,
  request: { name: string; namespace: string; parameters?: Record<string, unknown> | null },
  maxDepth: number,
): Record<string, unknown> {
  const { name, namespace, parameters } = request;
  const early = [
    ...conflictItems(parameters, { name, namespace }),
    ...depthItems(parameters ?? null, maxDepth, ['body', 'parameters']),
  ];
  if (early.length > 0) throw new RequestValidationError(early);
  const values = parameterValues(template.parameters, parameters, { name, namespace });
  const rendered = renderTemplate(template.manifest, values);
  if (rendered.problems.length > 0) {
    throw new RequestValidationError(rendered.problems.map(problemItem));
  }
  return finalise(rendered.manifest, { name, namespace, template: templateName });
}

/**
 * Server-side apply would quietly update a job of the same name; creating means it must not exist.
 * Only asked for allowed namespaces, so the answer never reveals what other namespaces hold.
 */
async function refuseExistingJob(deps: TemplateRouteDeps, namespace: string, name: string): Promise<void> {
  if (!deps.policy.config.allowedNamespaces.includes(namespace)) return;
  const exists = await deps.jobs.read(namespace, name).then(
    () => true,
    (error: unknown) => {
      if (error instanceof HttpError && error.statusCode === 404) return false;
      throw error;
    },
  );
  if (exists) throw new HttpError(409, `Job ${namespace}/${name} already exists`);
}

function createJobRoute(app: ServiceApp, deps: TemplateRouteDeps): void {
  const maxDepth = deps.policy.config.maxDepth;
  app.post(
    '/jobs/from-template/:name',
    {
      schema: {
        operationId: 'create_job_from_template_api_v1_jobs_from_template__name__post',
        summary:
          'Create a job from a template with parameter substitution (200 created; 400 with the per-resource report when policy or cluster rejects it)',
        params: TemplatePath,
        body: JobFromTemplateRequest,
        response: RESPONSES.createJob,
      },
    },
    async (request, reply) => {
      const templateName = request.params.name;
      const { name, namespace } = request.body;
      const template = await deps.templates.get(templateName);
      if (!template) throw new HttpError(404, `Template ${templateName} not found`);
      const manifest = renderJob(template, templateName, request.body, maxDepth);
      await refuseExistingJob(deps, namespace, name);

      const report = await deps.applier.apply([manifest], { namespace, dryRun: false, validate: true });
      const outcome = report.resources[0]?.status;
      request.log.info(
        { template: templateName, namespace, job: name, success: report.success, outcome },
        'job from template',
      );
      if (!report.success) return reply.code(400).send({ ...report, template: templateName });
      if (outcome !== 'created') {
        // Lost a race with another create of the same name between the check and the apply.
        throw new HttpError(409, `Job ${namespace}/${name} already exists`);
      }
      const job = await deps.jobs.read(namespace, name);
      return { ...report, template: templateName, job: kubernetesJobView(job) };
    },
  );
}

export const templateRoutes: FastifyPluginAsyncTypebox<TemplateRouteDeps> = async (app, deps) => {
  for (const route of [listRoute, createRoute, getRoute, deleteRoute, createJobRoute]) route(app, deps);
};

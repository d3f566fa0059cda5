/** Job templates: storage, `{{param}}` substitution and the template routes (see docs/templates.md). */
export { loadTemplateConfig, type TemplateConfig } from './config.js';
export {
  DEFAULT_MAX_INSERTED_BYTES,
  parameterValues,
  renderTemplate,
  RESERVED_PARAMETERS,
  scanPlaceholders,
  type PlaceholderScan,
  type RenderProblem,
  type RenderResult,
} from './placeholders.js';
export { TEMPLATE_LABEL, templateRoutes, TEMPLATES_PREFIX, type TemplateRouteDeps } from './routes.js';
export { JobFromTemplateRequest, JobTemplateRequest, TemplatePath } from './schemas.js';
export { MAX_TEMPLATE_BYTES, TemplateStore, type StoredTemplate } from './store.js';

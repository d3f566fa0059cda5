/** Job templates: storage, `{{param}}` substitution and the template routes (see docs/templates.md). */
import { EnvReader, EnvConfigError } from '../../../shared/env.js';
import { TABLES } from '../../../../lib/tables.js';

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
export { registerTemplateRoutes, TEMPLATE_LABEL, type TemplateRouteDeps } from './routes.js';
export { JobFromTemplateRequest, JobTemplateRequest, TemplatePath } from './schemas.js';
export { MAX_TEMPLATE_BYTES, TemplateStore, type StoredTemplate } from './store.js';

export interface TemplateConfig {
  /** JOB_TEMPLATES_TABLE: the central job-templates table. */
  tableName: string;
}

export function loadTemplateConfig(env: NodeJS.ProcessEnv = process.env): TemplateConfig {
  const tableName = new EnvReader(env).optionalString(TABLES.jobTemplates.envVar);
  if (!tableName) {
    throw new EnvConfigError([`${TABLES.jobTemplates.envVar} is not set (name of the job-templates table)`]);
  }
  return { tableName };
}

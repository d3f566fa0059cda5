/** Job templates: storage, `{{param}}` substitution and the template routes (see docs/templates.md). */
export { loadTemplateConfig, type TemplateConfig } from './config.js';
export { parameterValues, renderTemplate, scanPlaceholders } from './placeholders.js';
export { templateRoutes, TEMPLATES_PREFIX } from './routes.js';
export { TemplateStore } from './store.js';

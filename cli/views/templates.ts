/** Views of the job template answers (docs/templates.md). */
import type { JobTemplate as Template } from '../../contracts/api/manifest-processor-central.js';
import { fieldsView, listView, text, type Fields } from './common.js';

const templateName = (t: Fields<Template>) => text(t.name);

export const templateListView = listView<Template>(
  'templates',
  [
    ['name', (t) => t.name],
    ['description', (t) => t.description],
    ['placeholders', (t) => t.placeholders],
    ['created', (t) => t.created_at],
    ['updated', (t) => t.updated_at, 'wide'],
  ],
  templateName,
  'template',
);

export const templateView = fieldsView<Template>(
  ['name', 'description', 'placeholders', 'parameters', 'created_at', 'updated_at'],
  templateName,
  'template',
);

/** Views of the job template answers (docs/templates.md). */
import { fieldsView, listView, text, type Fields } from './common.js';

interface Template {
  name: string;
  description: string | null;
  placeholders: string[];
  parameters: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

const templateName = (t: Fields<Template>) => text(t.name);

export const templateListView = listView<Template>(
  'templates',
  [
    ['name', (t) => t.name],
    ['description', (t) => t.description],
    ['placeholders', (t) => t.placeholders],
    ['created', (t) => t.created_at],
  ],
  templateName,
);

export const templateView = fieldsView<Template>(
  ['name', 'description', 'placeholders', 'parameters', 'created_at', 'updated_at'],
  templateName,
);

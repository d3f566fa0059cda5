/**
 * Request schemas of the template operations (docs/templates.md: JobTemplateRequest / JobFromTemplateRequest).
 * Bodies are closed (unknown fields → 422 extra_forbidden): a misspelt `parameters` must not silently
 * run a job with the template's defaults.
 */
import { Type, type Static } from 'typebox';
import { Nullable } from '../../../shared/schema.js';

/**
 * Template and job names are DNS-1123 labels (1–63 characters): a job name must be one for its pods'
 * `job-name` label anyway, and a template name travels in URL paths and in the `gco.dev/template` label.
 */
export const DNS_LABEL_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';
const DnsLabel = (description: string) =>
  Type.String({ minLength: 1, maxLength: 63, pattern: DNS_LABEL_PATTERN, description });

export const JobTemplateRequest = Type.Object(
  {
    name: DnsLabel('Template name (DNS-1123 label)'),
    manifest: Type.Record(Type.String(), Type.Unknown(), {
      description: 'batch/v1 Job manifest; string values may contain {{name}}-style placeholders',
    }),
    description: Type.Optional(Nullable(Type.String({ maxLength: 1024 }))),
    parameters: Type.Optional(
      Nullable(
        Type.Record(Type.String(), Type.Unknown(), {
          description: 'Default parameter values (any JSON value)',
        }),
      ),
    ),
  },
  { title: 'JobTemplateRequest', additionalProperties: false },
);
export type JobTemplateBody = Static<typeof JobTemplateRequest>;

export const JobFromTemplateRequest = Type.Object(
  {
    name: DnsLabel('Job name (DNS-1123 label)'),
    namespace: Type.String({
      default: 'svc-jobs',
      minLength: 1,
      maxLength: 63,
      pattern: DNS_LABEL_PATTERN,
      description: 'Target namespace',
    }),
    parameters: Type.Optional(
      Nullable(Type.Record(Type.String(), Type.Unknown(), { description: 'Parameter overrides' })),
    ),
  },
  { title: 'JobFromTemplateRequest', additionalProperties: false },
);
export type JobFromTemplateBody = Static<typeof JobFromTemplateRequest>;

/** Path names are checked for length only: a name that cannot exist is simply not found. */
export const TemplatePath = Type.Object({ name: Type.String({ minLength: 1, maxLength: 63 }) });

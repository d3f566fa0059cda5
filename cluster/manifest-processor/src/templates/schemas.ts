/**
 * Request schemas of the template operations (docs/templates.md: JobTemplateRequest / JobFromTemplateRequest).
 * Bodies are closed like every body (unknown fields → 422 extra_forbidden, service framework): a
 * misspelt `parameters` must not silently run a job with the template's defaults.
 */
import { Type } from 'typebox';
import { Nullable } from '../../../shared/schema.js';
import { ERROR_HINT } from '../../../shared/validation.js';

/**
 * A job's name and namespace are DNS-1123 labels: Kubernetes requires it (a job name also becomes its
 * pods' `job-name` label), so the rule is checked here rather than after a round trip to the cluster.
 */
const DNS_LABEL_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';
const DNS_LABEL_HINT =
  'Kubernetes names are lower-case letters, digits and "-", starting and ending with a letter or digit';

/** Template names are what the spec says, 1–63 characters of any kind (docs/templates.md). */
const TemplateName = Type.String({
  minLength: 1,
  maxLength: 63,
  description: 'Template name (1–63 characters)',
});

export const JobTemplateRequest = Type.Object(
  {
    name: TemplateName,
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
  { title: 'JobTemplateRequest' },
);

export const JobFromTemplateRequest = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 63,
      pattern: DNS_LABEL_PATTERN,
      description: 'Job name (DNS-1123 label)',
      [ERROR_HINT]: DNS_LABEL_HINT,
    }),
    namespace: Type.String({
      default: 'svc-jobs',
      minLength: 1,
      maxLength: 63,
      pattern: DNS_LABEL_PATTERN,
      description: 'Target namespace',
      [ERROR_HINT]: DNS_LABEL_HINT,
    }),
    parameters: Type.Optional(
      Nullable(Type.Record(Type.String(), Type.Unknown(), { description: 'Parameter overrides' })),
    ),
  },
  { title: 'JobFromTemplateRequest' },
);

/** Path names are checked for length only: a name that cannot exist is simply not found. */
export const TemplatePath = Type.Object({ name: TemplateName });

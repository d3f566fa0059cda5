/** Request schemas of manifest-processor (docs/manifest-processor.md): every field, default and bound as specified. */
import { Type } from 'typebox';
import { FreeFormObject, Nullable, StringEnum } from '../../shared/schema.js';
import { ERROR_HINT } from '../../shared/validation.js';

import { JOB_STATUSES } from '../../../contracts/api/manifest-processor.js';

export { type JobStatus } from '../../../contracts/api/manifest-processor.js';
const JobStatusSchema = StringEnum(JOB_STATUSES, { title: 'JobStatus' });

/** Label selectors of the jobs operations (syntax checked by label-selector.ts: `key=value` lists only). */
const LabelSelector = Type.String({ maxLength: 1024 });

/** Sort keys of GET /api/v1/jobs, `field:asc|desc`. */
const JOB_SORT_FIELDS = ['createdAt', 'name', 'namespace', 'status', 'startedAt', 'completedAt'] as const;
const SORT_PATTERN = `^(${JOB_SORT_FIELDS.join('|')}):(asc|desc)$`;

export const ManifestSubmissionAPIRequest = Type.Object(
  {
    manifests: Type.Array(FreeFormObject, { description: 'List of orchestrator manifests' }),
    namespace: Type.Optional(
      Nullable(Type.String({ description: 'Default namespace for manifests lacking one' })),
    ),
    dry_run: Type.Boolean({ default: false, description: 'Validate without applying' }),
    validate: Type.Boolean({ default: true, description: 'Perform validation checks' }),
  },
  { title: 'ManifestSubmissionAPIRequest' },
);

export const BulkDeleteRequest = Type.Object(
  {
    dry_run: Type.Boolean({ default: false, description: 'If true only report what would be deleted' }),
    label_selector: Type.Optional(Nullable(LabelSelector)),
    namespace: Type.Optional(Nullable(Type.String())),
    older_than_days: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 365 }))),
    status: Type.Optional(Nullable(JobStatusSchema)),
  },
  { title: 'BulkDeleteRequest' },
);

export const ListJobsQuery = Type.Object({
  namespace: Type.Optional(Type.String()),
  status: Type.Optional(JobStatusSchema),
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 50 }),
  offset: Type.Integer({ minimum: 0, default: 0 }),
  sort: Type.String({ default: 'createdAt:desc', pattern: SORT_PATTERN }),
  label_selector: Type.Optional(LabelSelector),
});

export const ResourceQuery = Type.Object({
  api_version: Type.String({ default: 'apps/v1' }),
  kind: Type.String({ default: 'Deployment' }),
});

/**
 * Path parameters that name Kubernetes objects (docs/api-limits.md). A namespace is a DNS-1123 label; an
 * object name follows Kubernetes' path-segment rule (never `.` or `..`, no `/` or `%`), since the name
 * becomes a segment of the API server URL and `..` would make it another URL.
 */
const NamespaceParam = Type.String({
  minLength: 1,
  maxLength: 63,
  pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
  [ERROR_HINT]: 'a namespace is 1 to 63 lower-case letters, digits and "-"',
});
const ObjectNameParam = Type.String({
  minLength: 1,
  maxLength: 253,
  pattern: '^(?!\\.\\.?$)[^/%]+$',
  [ERROR_HINT]: 'a Kubernetes name has 1 to 253 characters, is not "." or "..", and holds no "/" or "%"',
});

export const JobPath = Type.Object({ namespace: NamespaceParam, name: ObjectNameParam });
export const PodPath = Type.Object({
  namespace: NamespaceParam,
  name: ObjectNameParam,
  pod_name: ObjectNameParam,
});

export const DeleteJobQuery = Type.Object({
  expected_uid: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
});

export const JobLogsQuery = Type.Object({
  container: Type.Optional(Type.String()),
  tail: Type.Integer({ minimum: 1, maximum: 10000, default: 100 }),
  previous: Type.Boolean({ default: false }),
  since_seconds: Type.Optional(Type.Integer({ minimum: 1 })),
  timestamps: Type.Boolean({ default: false }),
});

export const PodLogsQuery = Type.Object({
  container: Type.Optional(Type.String()),
  tail: Type.Integer({ minimum: 1, maximum: 10000, default: 100 }),
  previous: Type.Boolean({ default: false }),
});

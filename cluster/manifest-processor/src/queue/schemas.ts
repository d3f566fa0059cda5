/** Request schemas of the central job queue operations (docs/queue.md: QueuedJobRequest, /api/v1/queue/*). */
import { Type, type Static } from 'typebox';
import { Nullable, StringEnum } from '../../../shared/schema.js';
import { ERROR_HINT } from '../../../shared/validation.js';
import { QUEUE_STATUSES } from '../../../../contracts/queue-states.js';

export { QUEUE_STATUSES, type QueueStatus } from '../../../../contracts/queue-states.js';

/** Default namespace of a queued job (QueuedJobRequest, docs/queue.md). */
const DEFAULT_QUEUE_NAMESPACE = 'svc-jobs';

/**
 * Accepted max_spot_price, USD per hour (docs/api-limits.md): the spec says only "> 0"; the bounds are
 * EC2's spot-price precision (six decimals) and a ceiling far above any instance's price, and keep the
 * value inside what DynamoDB can store (1e-130 to 1e125).
 */
export const MIN_SPOT_PRICE = 0.000001;
const MAX_SPOT_PRICE = 10_000;
export const SPOT_PRICE_HINT = `max_spot_price is USD per hour with EC2's six-decimal precision: send a value from ${MIN_SPOT_PRICE} to ${MAX_SPOT_PRICE} (docs/api-limits.md)`;

export const QueuedJobRequest = Type.Object(
  {
    manifest: Type.Record(Type.String(), Type.Unknown(), { description: 'batch/v1 Job manifest' }),
    target_region: Type.String({
      minLength: 1,
      maxLength: 64,
      description: "Region that executes the job: one of the deployment's regions",
    }),
    namespace: Type.String({ default: DEFAULT_QUEUE_NAMESPACE, minLength: 1 }),
    priority: Type.Integer({
      default: 0,
      minimum: 0,
      maximum: 100,
      description: 'Higher means more important',
    }),
    labels: Type.Optional(
      Nullable(Type.Record(Type.String(), Type.String(), { description: 'Labels for filtering' })),
    ),
    max_spot_price: Type.Optional(
      Nullable(
        Type.Number({
          // The spec's "> 0"; the floor (MIN_SPOT_PRICE) is checked with the cross-field rules.
          exclusiveMinimum: 0,
          maximum: MAX_SPOT_PRICE,
          description:
            'USD per hour (0.000001 to 10000); dispatch waits until the spot price of spot_instance_type in the target region is at or below it',
          [ERROR_HINT]: SPOT_PRICE_HINT,
        }),
      ),
    ),
    spot_instance_type: Type.Optional(
      Nullable(
        Type.String({
          minLength: 1,
          maxLength: 64,
          description: 'Instance type whose spot price gates dispatch; requires max_spot_price',
        }),
      ),
    ),
  },
  // Closed like every body (service framework): a misspelt max_spot_price must not silently turn a
  // price-gated job into an immediate one.
  { title: 'QueuedJobRequest' },
);
export type QueuedJobBody = Static<typeof QueuedJobRequest>;

export const SubmitHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x21-\\x7E]+$',
      description: 'Stable key for safe replay of an identical submission (printable ASCII, no spaces)',
    }),
  ),
});

/** Cursors are opaque; the bound is the specified one (2048, docs/queue.md). */
export const MAX_CURSOR_LENGTH = 2048;

export const ListQueuedJobsQuery = Type.Object({
  target_region: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  status: Type.Optional(StringEnum(QUEUE_STATUSES, { title: 'QueueStatus' })),
  namespace: Type.Optional(Type.String({ minLength: 1, maxLength: 63 })),
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
  cursor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: MAX_CURSOR_LENGTH,
      description: 'next_cursor of the previous page',
    }),
  ),
});

export const JobIdPath = Type.Object({ job_id: Type.String({ minLength: 1, maxLength: 128 }) });

export const CancelQuery = Type.Object({
  reason: Type.Optional(Type.String({ maxLength: 1024 })),
});

export const PollQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 20, default: 5 }),
});

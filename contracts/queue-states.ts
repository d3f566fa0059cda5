/**
 * Queue states (docs/queue.md has the diagram). A module of its own, free of schema code, so the `gco`
 * client offers exactly the states the service knows.
 */
export const QUEUE_STATUSES = [
  'queued',
  'claimed',
  'dispatched',
  'running',
  'succeeded',
  'failed',
  'cancelled',
] as const;
export type QueueStatus = (typeof QUEUE_STATUSES)[number];

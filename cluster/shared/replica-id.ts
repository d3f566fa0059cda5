/** Identifies this process among the replicas sharing a table (queue claims, webhook delivery leases). */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { EnvReader } from '../../contracts/env/reader.js';

/** The pod name (HOSTNAME) plus a random suffix, so a container restarted in place is a new replica. */
export function replicaId(read: EnvReader): string {
  return `${read.optional('HOSTNAME') ?? hostname()}-${randomBytes(3).toString('hex')}`;
}

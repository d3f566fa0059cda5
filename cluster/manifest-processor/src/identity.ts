/** Who this service says it is: in its logs, metrics, /openapi.json and descriptor routes. */
import type { ClusterServiceName } from '../../../contracts/routing.js';

export const SERVICE_NAME = 'manifest-processor' satisfies ClusterServiceName;
export const SERVICE_VERSION = '2.0.0';

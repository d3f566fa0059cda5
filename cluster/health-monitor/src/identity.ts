/** Who this service says it is: in its logs, metrics, /openapi.json and descriptor routes. */
import type { ClusterServiceName } from '../../../contracts/routing.js';

export const SERVICE_NAME = 'health-monitor' satisfies ClusterServiceName;
export const SERVICE_VERSION = '1.0.0';

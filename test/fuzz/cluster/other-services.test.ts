/** Generated input for health-monitor, inference-proxy and cost-monitor. */
import { OPERATIONS } from '../../support/cluster-operations.js';
import { fuzzFile } from './run-file.js';

fuzzFile([
  { service: 'health-monitor', operations: OPERATIONS['health-monitor'] },
  { service: 'inference-proxy', operations: OPERATIONS['inference-proxy'] },
  { service: 'cost-monitor', operations: OPERATIONS['cost-monitor'] },
]);

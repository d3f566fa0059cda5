/** Generated input for manifest-processor's queue, templates, webhooks and cost operations. */
import { MANIFEST_PROCESSOR_CENTRAL } from '../../support/cluster-operations.js';
import { fuzzFile } from './run-file.js';

fuzzFile([{ service: 'manifest-processor', operations: MANIFEST_PROCESSOR_CENTRAL }]);

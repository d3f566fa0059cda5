/** Generated input for manifest-processor's inference endpoint lifecycle (docs/inference-endpoints.md). */
import { MANIFEST_PROCESSOR_INFERENCE } from '../../support/cluster-operations.js';
import { fuzzFile } from './run-file.js';

fuzzFile([{ service: 'manifest-processor', operations: MANIFEST_PROCESSOR_INFERENCE }]);

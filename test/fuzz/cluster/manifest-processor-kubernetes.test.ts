/** Generated input for manifest-processor's manifests, jobs and service-information operations. */
import { MANIFEST_PROCESSOR_KUBERNETES } from '../../support/cluster-operations.js';
import { fuzzFile } from './run-file.js';

fuzzFile([{ service: 'manifest-processor', operations: MANIFEST_PROCESSOR_KUBERNETES }]);

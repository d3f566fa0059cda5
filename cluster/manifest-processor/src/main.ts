/** manifest-processor entry point (the container's command). */
import { runService } from '../../shared/main.js';
import { createManifestProcessorFromEnv, SERVICE_NAME } from './app.js';

await runService({ name: SERVICE_NAME, create: (env) => createManifestProcessorFromEnv(env) });

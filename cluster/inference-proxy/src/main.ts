/** inference-proxy entry point (the container's command). */
import { runService } from '../../shared/main.js';
import { createInferenceProxyFromEnv } from './app.js';
import { SERVICE_NAME } from './identity.js';

await runService({ name: SERVICE_NAME, create: (env) => createInferenceProxyFromEnv(env) });

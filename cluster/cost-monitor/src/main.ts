/** cost-monitor entry point (the container's command). */
import { runService } from '../../shared/main.js';
import { createCostMonitorFromEnv } from './app.js';
import { SERVICE_NAME } from './identity.js';

// The specified port is 8443 (HTTPS); without TLS material (local runs) the framework's default applies.
await runService({ name: SERVICE_NAME, tlsPort: 8443, create: (env) => createCostMonitorFromEnv(env) });

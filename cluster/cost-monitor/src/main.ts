/** cost-monitor entry point (the container's command). */
import { runService } from '../../shared/main.js';
import { createCostMonitorFromEnv, SERVICE_NAME } from './app.js';

// The specified port is 8443 (HTTPS); without TLS material (local runs) the framework's default applies.
await runService({ name: SERVICE_NAME, tlsPort: 8443, create: (env) => createCostMonitorFromEnv(env) });

/**
 * Test helper: manifest-processor's framework (envelope, errors, probes, OpenAPI) with only the plugins
 * under test, listening on a random loopback port.
 */
import { SERVICE_NAME, SERVICE_VERSION } from '../../cluster/manifest-processor/src/identity.js';
import { silentServiceLogger } from '../../cluster/shared/logger.js';
import { createService, type Service, type ServiceOptions } from '../../cluster/shared/service.js';
import { testEnvelopeVerifier } from './cluster-fixtures.js';

export interface PluginService {
  service: Service;
  base: string;
}

export async function startPluginService(
  opts: Pick<ServiceOptions, 'description' | 'routes' | 'readiness' | 'onClose'>,
): Promise<PluginService> {
  const service = await createService({
    name: SERVICE_NAME,
    version: SERVICE_VERSION,
    envelope: testEnvelopeVerifier(),
    logger: silentServiceLogger(),
    ...opts,
  });
  return { service, base: await service.app.listen({ host: '127.0.0.1', port: 0 }) };
}

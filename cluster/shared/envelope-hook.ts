/**
 * Verifies the HMAC envelope (docs/architecture.md, "HMAC envelope v1") on every request except the exempt
 * paths. A failure is always 403 {"detail":"Forbidden"}; the reason goes to the log and to a metric.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { UNAUTHENTICATED_PATHS, type EnvelopeVerifier } from '../../contracts/envelope/envelope.js';
import { pathOf } from '../../contracts/routing.js';
import type { ServiceMetrics } from './metrics.js';

export function isExemptPath(target: string): boolean {
  return UNAUTHENTICATED_PATHS.has(pathOf(target));
}

export function envelopeHook(verifier: EnvelopeVerifier, metrics: ServiceMetrics) {
  return async function verifyEnvelope(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const target = request.raw.url ?? request.url;
    if (isExemptPath(target)) return;
    let result;
    try {
      result = await verifier.verify({
        method: request.method,
        target,
        headers: request.headers,
        body: request.rawBody,
      });
    } catch (error) {
      // Key material could not be loaded: fail closed, but tell operators why.
      request.log.error({ err: error }, 'envelope verification could not run');
      result = { ok: false as const, reason: 'no_keys' as const };
    }
    if (result.ok) return;
    metrics.envelopeRejections.inc({ reason: result.reason });
    request.log.warn(
      { reason: result.reason, method: request.method, path: pathOf(target) },
      'envelope rejected',
    );
    await reply.code(403).send({ detail: 'Forbidden' });
  };
}

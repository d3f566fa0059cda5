/**
 * inference-proxy's answers (docs/inference-proxy.md). The proxied model's answers are relayed as they
 * stream (the route hijacks the reply: nothing is serialised), so only the descriptor and the proxy's own
 * JSON errors have response schemas.
 */
import { Type } from 'typebox';
import { EnvelopeRejected, ErrorDetail, HTTPValidationError } from './errors.js';

const InferenceProxyDescriptor = Type.Object({
  service: Type.String(),
  version: Type.String(),
  region: Type.String(),
  description: Type.String(),
  endpoints: Type.Object({ inference: Type.String(), liveness: Type.String(), readiness: Type.String() }),
});

export const INFERENCE_PROXY_RESPONSES = {
  root: { 200: InferenceProxyDescriptor, 403: EnvelopeRejected, 422: HTTPValidationError },
  /** The proxy's own errors; a model's own error statuses are relayed, never serialised. */
  proxy: {
    403: EnvelopeRejected,
    404: ErrorDetail('Unknown endpoint, not running in this region, or path outside the allowlist'),
    422: HTTPValidationError,
    502: ErrorDetail('Model server unreachable, TLS failure, or a malformed endpoint record'),
    503: ErrorDetail('Endpoint store unavailable'),
    504: ErrorDetail('Model server sent no response headers in time'),
  },
};

/** Managed inference endpoints: the lifecycle API and its store (docs/inference-endpoints.md). */
export { loadInferenceEndpointConfig, type InferenceEndpointConfig } from './config.js';
export { INFERENCE_ENDPOINTS_PREFIX, inferenceEndpointRoutes } from './routes.js';
export { InferenceEndpointStore } from './store.js';
export { EndpointValidator } from './validation.js';

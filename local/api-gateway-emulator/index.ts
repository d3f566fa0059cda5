/**
 * The local API Gateway emulator: serves the REST APIs of contracts/api-routes.ts on 127.0.0.1 with SigV4,
 * Lambda authorizers, proxy events, integration timeouts and response streaming (docs/local-platform.md).
 */
export { startApiGatewayEmulator } from './server.js';
export type { AccessLogEntry, ApiGatewayEmulator } from './server.js';
export type { LambdaBinding } from './invoke.js';

/**
 * The local API Gateway emulator: serves the REST APIs of contracts/api-routes.ts on 127.0.0.1 with SigV4,
 * Lambda authorizers, proxy events, integration timeouts and response streaming (docs/local-platform.md).
 */
export { startApiGatewayEmulator, MAX_PAYLOAD_BYTES } from './server.js';
export type { AccessLogEntry, ApiGatewayEmulator, ApiGatewayEmulatorOptions } from './server.js';
export type { BufferedLambda, LambdaBinding, StreamingLambda } from './invoke.js';
export type { RequestAuthorizerHandler, RequestAuthorizerOptions } from './authorizer.js';
export { RouteTable, type RouteMatch } from './routes.js';
export { lambdaContext, functionArn, type FunctionInfo } from './lambda-context.js';

/**
 * The wire protocols of the AWS stand-ins: one small HTTP server per service on 127.0.0.1 that verifies
 * the SDK's SigV4 signature (the signing region picks which region's data a call sees, as separate
 * regional endpoints would), then dispatches on the operation:
 * - JSON 1.1 (`X-Amz-Target: <prefix>.<Operation>`, JSON body and answer, errors `{"__type","message"}`);
 * - query (form body `Action=…`, XML answer, errors `<ErrorResponse>`).
 * Only the operations the platform's code calls exist; anything else is the service's own
 * "unknown operation" error.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isKnownRegion } from '../../contracts/partition.js';
import { verifySigV4, type CredentialStore } from '../sigv4-verifier.js';

/** A service error as the SDK parses it (`error.name` = code). */
export class AwsServiceError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly statusCode = 400,
  ) {
    super(message);
    this.name = code;
  }
}

interface OperationContext {
  /** Region the caller signed for. */
  region: string;
  requestId: string;
}

type JsonOperation = (input: Record<string, unknown>, ctx: OperationContext) => unknown;
/** Query operations get the form parameters and return the `<…Result>` inner XML. */
type QueryOperation = (params: URLSearchParams, ctx: OperationContext) => string;

type StandInProtocol =
  | { kind: 'json'; targetPrefix: string; operations: Readonly<Record<string, JsonOperation>> }
  | { kind: 'query'; xmlns: string; operations: Readonly<Record<string, QueryOperation>> };

export interface StandInOptions {
  /** Signing name (`secretsmanager`, `ssm`, `elasticloadbalancing`). */
  service: string;
  credentials: CredentialStore;
  protocol: StandInProtocol;
}

export interface StandInServer {
  readonly endpoint: string;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new AwsServiceError('RequestEntityTooLarge', 'Request too large', 413);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export function xmlEscape(value: string): string {
  return value.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
}

function sendJsonError(res: ServerResponse, error: AwsServiceError, requestId: string): void {
  res.writeHead(error.statusCode, {
    'content-type': 'application/x-amz-json-1.1',
    'x-amzn-requestid': requestId,
    'x-amzn-errortype': error.code,
  });
  res.end(JSON.stringify({ __type: error.code, message: error.message }));
}

function sendQueryError(res: ServerResponse, error: AwsServiceError, requestId: string): void {
  res.writeHead(error.statusCode, { 'content-type': 'text/xml', 'x-amzn-requestid': requestId });
  res.end(
    `<ErrorResponse><Error><Type>Sender</Type><Code>${xmlEscape(error.code)}</Code>` +
      `<Message>${xmlEscape(error.message)}</Message></Error><RequestId>${requestId}</RequestId></ErrorResponse>`,
  );
}

async function handle(opts: StandInOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const requestId = randomUUID();
  const protocol = opts.protocol;
  const sendError = (error: AwsServiceError) =>
    protocol.kind === 'json' ? sendJsonError(res, error, requestId) : sendQueryError(res, error, requestId);
  try {
    const body = await readBody(req);
    const verdict = await verifySigV4(
      { method: req.method ?? 'GET', target: req.url ?? '/', rawHeaders: req.rawHeaders, body },
      { service: opts.service, credentials: opts.credentials },
    );
    if (!verdict.ok) throw new AwsServiceError(verdict.errorType, verdict.message, 403);
    if (!isKnownRegion(verdict.region)) {
      throw new AwsServiceError(
        'InvalidSignatureException',
        'Credential should be scoped to a valid region. ',
        403,
      );
    }
    const ctx: OperationContext = { region: verdict.region, requestId };

    if (protocol.kind === 'json') {
      const target = String(req.headers['x-amz-target'] ?? '');
      const operation = target.startsWith(`${protocol.targetPrefix}.`)
        ? protocol.operations[target.slice(protocol.targetPrefix.length + 1)]
        : undefined;
      if (operation === undefined)
        throw new AwsServiceError('UnknownOperationException', `Unknown operation ${target}`);
      let input: unknown;
      try {
        input = body.length === 0 ? {} : JSON.parse(body.toString('utf8'));
      } catch {
        throw new AwsServiceError('SerializationException', 'Request body is not valid JSON');
      }
      if (typeof input !== 'object' || input === null || Array.isArray(input)) {
        throw new AwsServiceError('SerializationException', 'Request body must be a JSON object');
      }
      const output = operation(input as Record<string, unknown>, ctx);
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': requestId });
      res.end(JSON.stringify(output ?? {}));
      return;
    }

    const params = new URLSearchParams(body.toString('utf8'));
    const action = params.get('Action') ?? '';
    const operation = protocol.operations[action];
    if (operation === undefined)
      throw new AwsServiceError('InvalidAction', `Could not find operation ${action}`);
    const result = operation(params, ctx);
    res.writeHead(200, { 'content-type': 'text/xml', 'x-amzn-requestid': requestId });
    res.end(
      `<${action}Response xmlns="${protocol.xmlns}"><${action}Result>${result}</${action}Result>` +
        `<ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata></${action}Response>`,
    );
  } catch (error) {
    sendError(
      error instanceof AwsServiceError
        ? error
        : new AwsServiceError('InternalFailure', 'The request processing has failed', 500),
    );
  }
}

export async function startStandInServer(opts: StandInOptions): Promise<StandInServer> {
  const server = createServer((req, res) => void handle(opts, req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The size quotas API Gateway applies to a REST request before anything else runs (developer guide,
 * "Quotas for configuring and running a REST API in API Gateway" and "Amazon API Gateway quotas and
 * important notes"), answered the way every other gateway error of the emulator is: a small JSON
 * `{"message": …}` that never echoes the request. docs/local-platform.md ("Request limits") lists them
 * with the answers; docs/api-limits.md has them next to the platform's other limits.
 */
import type { ApiDefinition } from '../../contracts/api-routes.js';
import { jsonAnswer, type HttpAnswer } from './responses.js';

/** "Length, in characters, of the URL" for an edge-optimized and for a regional API. */
export const URL_LENGTH_LIMIT: Readonly<Record<ApiDefinition['endpointType'], number>> = {
  EDGE: 8192,
  REGIONAL: 10240,
};
/** "Total combined size of request line and header values", in bytes. */
const REQUEST_HEAD_LIMIT_BYTES = 10240;
/**
 * The method ARN (`arn:…:execute-api:<region>:<account>:<api>/<stage>/<METHOD>/<path>`) of a method with
 * authorization may be at most 1600 bytes; longer path parameters make the client get a 414.
 */
export const METHOD_ARN_LIMIT_BYTES = 1600;
/**
 * How much of a request head Node's parser reads. Above the quotas, so that an over-long URL gets the
 * quota's 414 from the emulator; a head beyond even this is refused by the parser (`parserRefusal`).
 */
export const PARSER_MAX_HEAD_BYTES = 256 * 1024;

const LIMIT_MESSAGES = {
  requestTimeout: 'Request Timeout',
  uriTooLong: 'Request-URI Too Long',
  headTooLarge: 'Request Header Fields Too Large',
  badRequest: 'Bad Request',
} as const;

/** 414 when the URL is longer than the endpoint type allows, 431 when line + header values are too big. */
export function requestSizeRefusal(
  endpointType: ApiDefinition['endpointType'],
  request: { method: string; target: string; rawHeaders: readonly string[]; domainName: string },
): HttpAnswer | undefined {
  const url = `https://${request.domainName}${request.target}`;
  if (url.length > URL_LENGTH_LIMIT[endpointType]) return jsonAnswer(414, LIMIT_MESSAGES.uriTooLong);
  let bytes = Buffer.byteLength(`${request.method} ${request.target} HTTP/1.1`);
  for (let i = 1; i < request.rawHeaders.length; i += 2)
    bytes += Buffer.byteLength(request.rawHeaders[i] ?? '');
  if (bytes > REQUEST_HEAD_LIMIT_BYTES) return jsonAnswer(431, LIMIT_MESSAGES.headTooLarge);
  return undefined;
}

/** 414 when the method ARN of an authorized route would pass 1600 bytes. */
export function methodArnRefusal(methodArn: string): HttpAnswer | undefined {
  return Buffer.byteLength(methodArn) > METHOD_ARN_LIMIT_BYTES
    ? jsonAnswer(414, LIMIT_MESSAGES.uriTooLong)
    : undefined;
}

/** Status, reason phrase and message for a request the listener refused before it was complete. */
function refusalFor(code: string | undefined): [number, string, string] {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'Request Header Fields Too Large', LIMIT_MESSAGES.headTooLarge];
    case 'ERR_HTTP_HEADERS_TIMEOUT':
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'Request Timeout', LIMIT_MESSAGES.requestTimeout];
    default:
      return [400, 'Bad Request', LIMIT_MESSAGES.badRequest];
  }
}

/**
 * What the emulator answers when Node's parser gives up on a request (a head over
 * PARSER_MAX_HEAD_BYTES, bytes that are not HTTP) or its head or body misses the listener's deadline
 * (docs/timeouts.md): 431, 408 or 400 JSON, written raw to the socket.
 */
export function parserRefusal(code: string | undefined): string {
  const [status, reason, message] = refusalFor(code);
  const body = JSON.stringify({ message });
  return (
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

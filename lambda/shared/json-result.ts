/**
 * A buffered API Gateway REST (Lambda proxy) answer with a JSON body. Headers go out as
 * `multiValueHeaders`, the form every handler of ours uses, so one answer shape serves them all.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';

export const JSON_CONTENT_TYPE = 'application/json';

export function jsonResult(
  statusCode: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): APIGatewayProxyResult {
  return {
    statusCode,
    multiValueHeaders: {
      'content-type': [JSON_CONTENT_TYPE],
      ...Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    },
    body: JSON.stringify(body),
    isBase64Encoded: false,
  };
}

/** Test helper: a JSON request to a cluster service, signed with envelope v1 as the edge proxies sign it. */
import { signEnvelope } from '../../contracts/envelope/envelope.js';
import { KEY } from './cluster-fixtures.js';

export interface SignedReply {
  status: number;
  headers: Headers;
  text: string;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests assert on arbitrary JSON shapes
}

async function signedCall(
  base: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<SignedReply> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...signEnvelope({ key, method, target: path, ...(payload === undefined ? {} : { body: payload }) }),
      ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(payload === undefined ? {} : { body: payload }),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    text,
    body: text ? (JSON.parse(text) as unknown) : undefined,
  };
}

export type SignedCall = (
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<SignedReply>;

/** signedCall bound to one service and key (the shared test key unless given). */
export function signedCaller(base: string, key = KEY): SignedCall {
  return (method, path, body, headers) => signedCall(base, key, method, path, body, headers);
}

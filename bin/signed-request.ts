/**
 * Calls a cluster service with a valid HMAC envelope, the way the edge proxies do. The signing key comes
 * from SIGNING_KEY or from the running local platform's .local/endpoints.json.
 *
 *   npx tsx bin/signed-request.ts GET  http://127.0.0.1:PORT/api/v1/metrics
 *   npx tsx bin/signed-request.ts POST http://127.0.0.1:PORT/api/v1/manifests/validate '{"manifests":[]}'
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { signEnvelope } from '../contracts/envelope/envelope.js';

const [method = '', url = '', body] = process.argv.slice(2);
if (!method || !url) {
  process.stderr.write('usage: tsx bin/signed-request.ts METHOD URL [JSON_BODY]\n');
  process.exit(2);
}

function signingKey(): string {
  if (process.env.SIGNING_KEY) return process.env.SIGNING_KEY;
  const file = resolve(process.env.GCO_LOCAL_DIR ?? '.local', 'endpoints.json');
  if (!existsSync(file))
    throw new Error(`set SIGNING_KEY or start the local platform (npm start) to create ${file}`);
  return (JSON.parse(readFileSync(file, 'utf8')) as { signingKey: string }).signingKey;
}

const target = new URL(url);
const headers: Record<string, string> = {
  ...signEnvelope({
    key: signingKey(),
    method: method.toUpperCase(),
    target: `${target.pathname}${target.search}`,
    body,
  }),
  ...(body === undefined ? {} : { 'content-type': 'application/json' }),
};
const res = await fetch(target, {
  method: method.toUpperCase(),
  headers,
  ...(body === undefined ? {} : { body }),
});
process.stderr.write(`HTTP ${res.status}\n`);
process.stdout.write(`${await res.text()}\n`);
process.exitCode = res.ok ? 0 : 1;

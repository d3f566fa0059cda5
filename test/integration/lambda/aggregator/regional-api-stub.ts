/**
 * A stand-in for one region's IAM-authorized regional API: a real HTTP server on 127.0.0.1 that checks
 * SigV4 the way API Gateway does (recompute with @smithy/signature-v4 from the signed headers, compare;
 * wrong region/service/key/date → 403) and then answers the five routes the regional resource policy
 * grants the aggregator with manifest-processor / health-monitor shaped bodies.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hash } from '@smithy/hash-node';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity } from '@smithy/types';
import { sortJobs, type JobView } from '../../../../cluster/manifest-processor/src/job-view.js';

const STAGE = '/prod';
const MAX_SKEW_MS = 5 * 60 * 1000;
const AUTH_RE =
  /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([a-z0-9-]+)\/([a-z0-9-]+)\/aws4_request, ?SignedHeaders=([a-z0-9\-;]+), ?Signature=([0-9a-f]{64})$/;

interface ReceivedRequest {
  method: string;
  path: string;
  rawQuery: string;
  query: Record<string, string | string[]>;
  body: string;
  headers: IncomingHttpHeaders;
}

function parseQuery(raw: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const pair of raw.split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const key = decodeURIComponent(eq < 0 ? pair : pair.slice(0, eq));
    const value = decodeURIComponent(eq < 0 ? '' : pair.slice(eq + 1));
    const prev = query[key];
    query[key] = prev === undefined ? value : [...(Array.isArray(prev) ? prev : [prev]), value];
  }
  return query;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

/** API Gateway's SigV4 check, reduced to what a verifier must do: null when valid, else the reason. */
async function verifySigV4(
  req: { method: string; url: string; headers: IncomingHttpHeaders; body: Buffer },
  expect: { region: string; service: string; credentials: Map<string, AwsCredentialIdentity>; now?: Date },
): Promise<string | null> {
  const match = AUTH_RE.exec(header(req.headers, 'authorization') ?? '');
  if (!match) return 'missing or malformed Authorization';
  const [, accessKeyId = '', scopeDate, scopeRegion, scopeService, signedHeaderList = '', signature = ''] =
    match;
  if (scopeRegion !== expect.region) return 'credential scope region mismatch';
  if (scopeService !== expect.service) return 'credential scope service mismatch';
  const credentials = expect.credentials.get(accessKeyId);
  if (!credentials) return 'unknown access key';
  const amzDate = header(req.headers, 'x-amz-date') ?? '';
  const dm = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (!dm) return 'missing x-amz-date';
  const signingDate = new Date(`${dm[1]}-${dm[2]}-${dm[3]}T${dm[4]}:${dm[5]}:${dm[6]}Z`);
  if (amzDate.slice(0, 8) !== scopeDate) return 'scope date mismatch';
  if (Math.abs((expect.now ?? new Date()).getTime() - signingDate.getTime()) > MAX_SKEW_MS) {
    return 'signature expired';
  }
  const signedHeaders = signedHeaderList.split(';');
  if (!signedHeaders.includes('host')) return 'host is not signed';
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) {
    const value = header(req.headers, name);
    if (value === undefined) return `signed header ${name} is missing`;
    headers[name] = value;
  }
  const declaredHash = headers['x-amz-content-sha256'];
  if (declaredHash !== undefined && declaredHash !== createHash('sha256').update(req.body).digest('hex')) {
    return 'payload hash mismatch';
  }
  const q = req.url.indexOf('?');
  let query;
  try {
    query = parseQuery(q < 0 ? '' : req.url.slice(q + 1));
  } catch {
    return 'malformed query';
  }
  const request = new HttpRequest({
    method: req.method,
    protocol: 'https:',
    hostname: headers.host ?? '',
    path: q < 0 ? req.url : req.url.slice(0, q),
    query,
    headers,
    ...(req.body.length > 0 ? { body: req.body.toString('utf8') } : {}),
  });
  const signer = new SignatureV4({
    service: expect.service,
    region: expect.region,
    credentials,
    sha256: Hash.bind(null, 'sha256'),
    applyChecksum: false,
  });
  const recomputed = await signer.sign(request, { signingDate, signableHeaders: new Set(signedHeaders) });
  const expected = /Signature=([0-9a-f]{64})$/.exec(recomputed.headers.authorization ?? '')?.[1] ?? '';
  const expectedHeaders = /SignedHeaders=([^,]+),/.exec(recomputed.headers.authorization ?? '')?.[1];
  if (expectedHeaders !== signedHeaderList) return 'signed header list mismatch';
  const a = Buffer.from(expected);
  const b = Buffer.from(signature);
  return a.length === b.length && timingSafeEqual(a, b) ? null : 'signature mismatch';
}

type StubMode = 'ok' | 'hang' | 'error';

export interface StubOptions {
  region: string;
  credentials: Map<string, AwsCredentialIdentity>;
  mode?: StubMode;
  jobs?: JobView[];
  healthy?: boolean;
  status?: Record<string, unknown>;
}

export interface RegionalApiStub {
  readonly region: string;
  readonly url: string;
  readonly received: ReceivedRequest[];
  readonly rejected: string[];
  mode: StubMode;
  close(): Promise<void>;
}

export function jobView(
  name: string,
  namespace: string,
  createdAt: string,
  status: JobView['status'] = 'running',
): JobView {
  return {
    name,
    namespace,
    uid: `${namespace}-${name}-uid`,
    status,
    created_at: createdAt,
    started_at: createdAt,
    completed_at: null,
    labels: { team: 'ml' },
    annotations: {},
    active: 1,
    ready: 1,
    succeeded: 0,
    failed: 0,
    parallelism: 1,
    completions: 1,
    backoff_limit: 6,
    images: ['public.ecr.aws/docker/library/busybox:1.36'],
    conditions: [],
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function one(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export async function startRegionalApiStub(options: StubOptions): Promise<RegionalApiStub> {
  const received: ReceivedRequest[] = [];
  const rejected: string[] = [];
  const jobs = options.jobs ?? [];
  const stub = {
    region: options.region,
    url: '',
    received,
    rejected,
    mode: options.mode ?? 'ok',
    close: async () => undefined,
  } as RegionalApiStub;

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        const url = req.url ?? '/';
        const reason = await verifySigV4(
          { method: req.method ?? 'GET', url, headers: req.headers, body },
          { region: options.region, service: 'execute-api', credentials: options.credentials },
        );
        if (reason) {
          rejected.push(reason);
          send(res, 403, {
            message: 'The request signature we calculated does not match the signature you provided.',
          });
          return;
        }
        const q = url.indexOf('?');
        const path = q < 0 ? url : url.slice(0, q);
        const rawQuery = q < 0 ? '' : url.slice(q + 1);
        const query = parseQuery(rawQuery);
        received.push({
          method: req.method ?? '',
          path,
          rawQuery,
          query,
          body: body.toString('utf8'),
          headers: req.headers,
        });
        if (stub.mode === 'hang') return; // never answers
        if (stub.mode === 'error') {
          send(res, 500, { message: 'Internal server error' });
          return;
        }
        const route = `${req.method} ${path}`;
        const base = { cluster: `gco-${options.region}`, region: options.region };
        switch (route) {
          case `GET ${STAGE}/api/v1/health`: {
            const healthy = options.healthy ?? true;
            send(res, healthy ? 200 : 503, {
              status: healthy ? 'healthy' : 'unhealthy',
              ...base,
              timestamp: new Date().toISOString(),
            });
            return;
          }
          case `GET ${STAGE}/api/v1/jobs`: {
            const sort = one(query.sort) ?? 'createdAt:desc';
            const limit = Number(one(query.limit) ?? 50);
            // The manifest-processor's own refusal of a limit below 1 (HTTPValidationError).
            if (!(limit >= 1)) {
              send(res, 422, {
                detail: [{ loc: ['query', 'limit'], msg: 'Input should be greater than or equal to 1' }],
              });
              return;
            }
            const offset = Number(one(query.offset) ?? 0);
            const namespace = one(query.namespace);
            const views = sortJobs(
              jobs.filter((j) => !namespace || j.namespace === namespace),
              sort,
            );
            const page = views.slice(offset, offset + limit);
            send(res, 200, {
              jobs: page,
              count: page.length,
              total: views.length,
              limit,
              offset,
              has_more: offset + page.length < views.length,
              sort,
            });
            return;
          }
          case `DELETE ${STAGE}/api/v1/jobs`: {
            if (body.length === 0) {
              send(res, 422, { detail: [{ loc: ['body'], msg: 'Field required', type: 'missing' }] });
              return;
            }
            const request = JSON.parse(body.toString('utf8')) as {
              dry_run?: boolean;
              namespace?: string;
            };
            const matched = jobs.filter((j) => !request.namespace || j.namespace === request.namespace);
            const results = matched.map((j, i) => ({
              namespace: j.namespace,
              name: j.name,
              uid: j.uid,
              status: j.status,
              deleted: !request.dry_run && i > 0,
              ...(!request.dry_run && i === 0 ? { error: 'conflict' } : {}),
            }));
            send(res, 200, {
              dry_run: request.dry_run ?? false,
              matched: matched.length,
              deleted: results.filter((r) => r.deleted).length,
              failed: results.filter((r) => 'error' in r).length,
              jobs: results,
            });
            return;
          }
          case `GET ${STAGE}/api/v1/status`:
            send(res, 200, {
              service: 'manifest-processor',
              version: '2.0.0',
              ...base,
              ...(options.status ?? {}),
            });
            return;
          default:
            // Routes the regional resource policy does not grant the aggregator.
            send(res, 403, { message: 'User is not authorized to access this resource' });
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  (stub as { url: string }).url = `http://127.0.0.1:${port}${STAGE}`;
  stub.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return stub;
}

/** A URL on 127.0.0.1 where nothing listens (connection refused). */
export async function refusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}${STAGE}`;
}

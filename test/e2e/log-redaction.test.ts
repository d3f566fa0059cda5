/**
 * No query value, credential or key ever reaches a log line (issue 25, "Secrets in logs"): `npm start` with
 * LOCAL_LOGS=json writes every service, Lambda and access log as JSON lines to its stdout (pino writes to
 * the file descriptor, so only a child process shows them all). Requests carrying distinctive secret values
 * in their query strings, under sensitive names and under names that say nothing, go through every listener
 * kind: the global, regional and analytics APIs (SigV4, or an API key in Authorization), a cluster service
 * called directly with the envelope, the region's ALB router, a request refused for its query (422) and one
 * refused for its missing signature (403). Then the platform stops and its whole output is searched.
 * The policy under test is contracts/runtime/redaction.ts (docs/timeouts.md, "Redaction").
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { signEnvelope } from '../../contracts/envelope/envelope.js';
import type { LocalEndpoints } from '../../local/platform.js';
import { rawRequest, signedRequest } from '../integration/local/support.js';
import { killAll, npmStart, processTree, whenReady, type NpmStart } from './support/npm-start.js';

/**
 * A value no log line could hold by chance: finding it anywhere in the output is a leak. Lower case and
 * short, so that it is a valid label value where it stands as one (a query the service accepts, 200).
 */
function secret(label: string): string {
  return `secret-${label}-${randomBytes(8).toString('hex')}`;
}

const SECRETS = {
  globalLabel: secret('global-label'),
  token: secret('token'),
  credential: secret('credential'),
  signature: secret('signature'),
  unknownGlobal: secret('unknown-global'),
  regionalLabel: secret('regional-label'),
  apiKeyParam: secret('apikey'),
  unknownRegional: secret('unknown-regional'),
  badLimit: secret('limit'),
  unsigned: secret('unsigned'),
  analytics: secret('analytics'),
  refusedKey: secret('refused-key'),
  serviceLabel: secret('service-label'),
  serviceToken: secret('service-token'),
  albLabel: secret('alb-label'),
  albToken: secret('alb-token'),
};

/**
 * Per-request log lines at least (the test must not pass on silence): each API call that reaches a service
 * is logged by it twice (incoming, completed), by the proxy Lambda and by the access log; each direct or
 * ALB call by the service twice; the analytics calls by their Lambdas.
 */
const MIN_REQUEST_LOG_LINES = 30;

let outDir = '';
let run: NpmStart;
let endpoints: LocalEndpoints;
/** The API key the analytics API issued: a credential, never to be logged. */
let issuedApiKey = '';
/** Status of each request, asserted so that each one reached the listener it was meant for. */
const statuses: Record<string, number> = {};

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), 'gco-log-redaction-'));
  run = npmStart(outDir, [], { LOCAL_LOGS: 'json' });
  endpoints = await whenReady(run, outDir);
  const tree = processTree(run.npm.pid ?? 0);
  try {
    await sendEverything();
  } finally {
    // A clean stop flushes every logger before the process ends.
    process.kill(run.npm.pid ?? 0, 'SIGTERM');
    await run.exited;
    killAll(tree);
  }
}, 120_000);

afterAll(() => {
  killAll(processTree(run.npm.pid ?? 0));
  rmSync(outDir, { recursive: true, force: true });
});

const JSON_HEADERS = { 'content-type': 'application/json' };

/** `/api/v1/jobs` with these query parameters, written as a client sends them. */
function jobsTarget(query: Record<string, string>): string {
  return `/api/v1/jobs?${new URLSearchParams(query).toString()}`;
}

async function sendEverything(): Promise<void> {
  const { apis, credentials, globalRegion, region, signingKey } = endpoints;
  const regional = apis.regional[region] ?? '';
  const analytics = apis.analytics ?? '';
  const viaGlobal = async (query: Record<string, string>) =>
    (await signedRequest(apis.global, { path: '/api/v1/jobs', query, region: globalRegion, credentials }))
      .status;
  const viaRegional = async (query: Record<string, string>) =>
    (await signedRequest(regional, { path: '/api/v1/jobs', query, region, credentials })).status;

  // The global API (SigV4): a secret in a parameter the service accepts (a label selector), then under sensitive names
  // (SigV4's own query names among them) and an unknown one, which the service refuses (422).
  statuses.global = await viaGlobal({ label_selector: `app=${SECRETS.globalLabel}` });
  statuses.globalSensitive = await viaGlobal({
    namespace: 'svc-jobs',
    token: SECRETS.token,
    'X-Amz-Credential': SECRETS.credential,
    'X-Amz-Signature': SECRETS.signature,
    foo: SECRETS.unknownGlobal,
  });

  // The regional API (SigV4), likewise; then a value the service refuses (limit must be an integer).
  statuses.regional = await viaRegional({ label_selector: `app=${SECRETS.regionalLabel}` });
  statuses.regionalSensitive = await viaRegional({
    namespace: 'svc-jobs',
    api_key: SECRETS.apiKeyParam,
    foo: SECRETS.unknownRegional,
  });
  statuses.badQuery = await viaRegional({ namespace: 'svc-jobs', limit: SECRETS.badLimit });

  // No signature at all: API Gateway refuses it (403) before any integration runs.
  statuses.unsigned = (await rawRequest(`${regional}${jobsTarget({ token: SECRETS.unsigned })}`)).status;

  // The analytics API: an application and a key (SigV4), then events with that key in Authorization.
  const admin = (path: string, body: unknown) =>
    signedRequest(analytics, {
      method: 'POST',
      path,
      headers: JSON_HEADERS,
      body: JSON.stringify(body),
      region: globalRegion,
      credentials,
    });
  const created = await admin('/applications', { Name: 'log-redaction' });
  const applicationId = String(created.json?.ApplicationId);
  const key = await admin(`/applications/${applicationId}/authorizations`, { Name: 'log-redaction-key' });
  issuedApiKey = String(key.json?.ApiKeyValue);
  const events = async (authorization: string) =>
    (
      await rawRequest(`${analytics}/applications/${applicationId}/events?token=${SECRETS.analytics}`, {
        method: 'POST',
        headers: [
          ['content-type', 'application/json'],
          ['Authorization', authorization],
        ],
        body: JSON.stringify({
          Events: [
            {
              event_id: randomUUID(),
              event_type: 'gameplay',
              event_name: 'level_started',
              event_timestamp: Date.now(),
              event_data: { level: 1 },
            },
          ],
        }),
      })
    ).status;
  statuses.events = await events(issuedApiKey);
  // A key that is not one (the authorizer refuses it as malformed: 401 Unauthorized).
  statuses.eventsRefusedKey = await events(SECRETS.refusedKey);

  // A cluster service directly, with a valid envelope over the exact target.
  const service = async (target: string) =>
    (
      await rawRequest(`${endpoints.services['manifest-processor'] ?? ''}${target}`, {
        headers: Object.entries(signEnvelope({ key: signingKey, method: 'GET', target })),
      })
    ).status;
  statuses.service = await service(jobsTarget({ label_selector: `app=${SECRETS.serviceLabel}` }));
  statuses.serviceSensitive = await service(jobsTarget({ token: SECRETS.serviceToken }));

  // The region's ALB router (HTTPS from the internal CA), on to the manifest processor.
  const alb = (target: string) => albGet(target, signEnvelope({ key: signingKey, method: 'GET', target }));
  statuses.alb = await alb(jobsTarget({ label_selector: `app=${SECRETS.albLabel}` }));
  statuses.albSensitive = await alb(jobsTarget({ token: SECRETS.albToken }));
}

/** A GET through the ALB router, presenting the backend host name its certificate is for. */
function albGet(target: string, headers: Record<string, string>): Promise<number> {
  const url = new URL(endpoints.alb);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: url.hostname,
        port: url.port,
        path: target,
        ca: endpoints.internalCaPem,
        servername: endpoints.edge.backendHostname,
        headers: { ...headers, host: endpoints.edge.backendHostname },
        agent: false,
      },
      (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.once('error', reject);
    req.end();
  });
}

/** The output's JSON lines (service, Lambda and access logs); the banner's plain lines are skipped. */
function logLines(): Record<string, unknown>[] {
  return run
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

test('every request reached the listener it was meant for', () => {
  expect(statuses).toEqual({
    global: 200,
    globalSensitive: 422,
    regional: 200,
    regionalSensitive: 422,
    badQuery: 422,
    unsigned: 403,
    events: 200,
    eventsRefusedKey: 401,
    service: 200,
    serviceSensitive: 422,
    alb: 200,
    albSensitive: 422,
  });
  expect(issuedApiKey).not.toBe('undefined');
});

/** The messages of per-request log lines: services (pino), edge Lambdas (Powertools), access logs. */
const REQUEST_MESSAGES = new Set([
  'incoming request',
  'request completed',
  'forwarded',
  'admin request',
  'api key accepted',
  'api key refused',
  'events batch',
]);

test('the platform logged every request, with query names and redacted values', () => {
  const lines = logLines();
  const requestLines = lines.filter(
    (line) => REQUEST_MESSAGES.has(String(line.message)) || line.access_log !== undefined,
  );
  expect(requestLines.length).toBeGreaterThanOrEqual(MIN_REQUEST_LOG_LINES);
  // Every request that reached the manifest processor, in the order sent, its target redacted.
  const targets = lines
    .filter((line) => line.message === 'incoming request')
    .map((line) => (line.req as { url?: unknown } | undefined)?.url);
  const R = '[REDACTED]';
  const byLabel = `/api/v1/jobs?label_selector=${R}`;
  expect(targets).toEqual([
    byLabel,
    `/api/v1/jobs?namespace=${R}&token=${R}&X-Amz-Credential=${R}&X-Amz-Signature=${R}&foo=${R}`,
    byLabel,
    `/api/v1/jobs?namespace=${R}&api_key=${R}&foo=${R}`,
    `/api/v1/jobs?namespace=${R}&limit=${R}`,
    byLabel,
    `/api/v1/jobs?token=${R}`,
    byLabel,
    `/api/v1/jobs?token=${R}`,
  ]);
  // The access logs of the global and regional APIs: the unsigned request among them, path only.
  const access = lines.filter((line) => line.access_log !== undefined);
  expect(access.map((line) => [line.path, line.status])).toEqual([
    ['/prod/api/v1/jobs', 200],
    ['/prod/api/v1/jobs', 422],
    ['/prod/api/v1/jobs', 200],
    ['/prod/api/v1/jobs', 422],
    ['/prod/api/v1/jobs', 422],
    ['/prod/api/v1/jobs', 403],
  ]);
});

test('no query value, API key, signing key or secret access key appears in any line', () => {
  const output = run.output();
  for (const value of [...Object.values(SECRETS), issuedApiKey, endpoints.signingKey]) {
    expect(output).not.toContain(value);
  }
  // The banner prints the developer's credentials for copy-paste (README); no log line may.
  const logged = logLines().map((line) => JSON.stringify(line));
  expect(logged.filter((line) => line.includes(endpoints.credentials.secretAccessKey))).toEqual([]);
});

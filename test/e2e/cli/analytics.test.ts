/**
 * `gco analytics …` end to end through the local analytics API (stage `live`): applications and keys
 * with SigV4, 1,200 events sent from NDJSON with the key (batched, counted in the Kinesis stream), the
 * per-event failures of invalid lines, a disabled key refused (authorizer cache TTL 0), warehouse setup.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, jest, test } from '@jest/globals';
import { startLocalPlatform, type LocalPlatform } from '../../../local/platform.js';
import { gco, jsonLines, tempFile } from '../../integration/cli/support/gco-process.js';
import { analyticsStreamRecords } from '../support/analytics-stream.js';
import { edgeClient, type EdgeClient } from '../support/edge.js';
import { localEnv } from './support/local-platform.js';

// Starts the whole local platform (services, emulators, esbuild bundles) and runs the real `gco`
// executable as child processes: tests and hooks get an explicit budget here; the hook that starts
// the platform and the longer tests name their own.
jest.setTimeout(30_000);

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- API bodies in assertions

let platform: LocalPlatform;
let edge: EdgeClient;
let env: Record<string, string>;

beforeAll(async () => {
  platform = await startLocalPlatform({ context: { analytics_api: { authorizer_cache_ttl_seconds: 0 } } });
  edge = edgeClient(platform);
  env = localEnv(platform);
}, 30_000);
afterAll(() => platform?.close());

const run = (args: string[]) => gco(['-o', 'json', ...args], { env });

test('apps and keys, then 1,200 events from NDJSON land in the stream; invalid lines are reported per event', async () => {
  const app = jsonLines(
    await run(['analytics', 'apps', 'create', 'cli-game', '--description', 'from gco']),
  )[0] as Json;
  expect(app).toMatchObject({ ApplicationName: 'cli-game', Description: 'from gco' });
  const key = jsonLines(await run(['analytics', 'keys', 'create', app.ApplicationId, 'cli-key']))[0] as Json;
  expect(key.ApiKeyValue).toMatch(/^gak_/);
  expect(
    (jsonLines(await run(['analytics', 'apps', 'list']))[0] as Json).Applications.map(
      (a: Json) => a.ApplicationId,
    ),
  ).toContain(app.ApplicationId);
  const listed = jsonLines(await run(['analytics', 'keys', 'list', app.ApplicationId]))[0] as Json;
  expect(listed.Authorizations[0]).toMatchObject({ ApiKeyId: key.ApiKeyId, Enabled: true });

  const lines = Array.from({ length: 1200 }, (_, i) =>
    JSON.stringify({
      event_id: randomUUID(),
      event_type: 'gameplay',
      event_name: 'level_up',
      event_timestamp: Date.now(),
      event_data: { i },
    }),
  );
  lines.splice(100, 0, '{"event_id": oops');
  lines.splice(
    700,
    0,
    JSON.stringify({
      event_id: 'not-a-uuid',
      event_type: 'gameplay',
      event_name: 'x',
      event_timestamp: Date.now(),
    }),
  );
  const file = tempFile('events.ndjson', `${lines.join('\n')}\n`);

  const sent = await run(['analytics', 'send', app.ApplicationId, file, '--key', key.ApiKeyValue]);
  // Exit 1: not every event was accepted. stdout: each batch's answer, unchanged.
  expect(sent.code).toBe(1);
  const answers = jsonLines(sent) as Json[];
  expect(answers.map((a) => [a.Total, a.FailedRecordCount])).toEqual([
    [500, 0],
    [500, 1],
    [201, 0],
  ]);
  expect(sent.stderr).toContain('1202 events: 1200 accepted, 2 failed (3 batches)');
  expect(sent.stderr).toMatch(/line 101 +- +Unreadable +not valid JSON/);
  expect(sent.stderr).toMatch(/line 701 +not-a-uuid +InvalidEvent +event_id must be a UUID/);

  const records = await analyticsStreamRecords(platform, String(app.ApplicationId));
  expect(records).toHaveLength(1200);
  expect(new Set(records.map((r) => r.event_id)).size).toBe(1200);
}, 60_000);

test('a disabled key is refused at once (exit 1, with why); enabled again it sends; delete removes app and keys', async () => {
  const app = jsonLines(await run(['analytics', 'apps', 'create', 'cli-keys']))[0] as Json;
  const key = jsonLines(await run(['analytics', 'keys', 'create', app.ApplicationId, 'k']))[0] as Json;
  const events = tempFile(
    'one.json',
    JSON.stringify([
      { event_id: randomUUID(), event_type: 'gameplay', event_name: 'start', event_timestamp: Date.now() },
    ]),
  );

  expect(jsonLines(await run(['analytics', 'keys', 'disable', app.ApplicationId, key.ApiKeyId]))[0]).toEqual({
    Enabled: false,
  });
  const refused = await run(['analytics', 'send', app.ApplicationId, events, '--key', key.ApiKeyValue]);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('HTTP 403');
  expect(refused.stderr).toMatch(/hint: The analytics API key is disabled/);

  await run(['analytics', 'keys', 'enable', app.ApplicationId, key.ApiKeyId]);
  const accepted = await gco(['-o', 'json', 'analytics', 'send', app.ApplicationId, events], {
    env: { ...env, GCO_ANALYTICS_KEY: key.ApiKeyValue },
  });
  expect(accepted.code).toBe(0);
  expect(jsonLines(accepted)).toEqual([{ Total: 1, FailedRecordCount: 0, Events: [{ Result: 'Ok' }] }]);

  expect(
    (jsonLines(await run(['analytics', 'keys', 'get', app.ApplicationId, key.ApiKeyId]))[0] as Json)
      .ApiKeyValue,
  ).toMatch(/…/);
  expect((await run(['analytics', 'apps', 'delete', app.ApplicationId, '--yes'])).code).toBe(0);
  const gone = await edge.analytics({
    path: `/applications/${String(app.ApplicationId)}/authorizations/${String(key.ApiKeyId)}`,
  });
  expect(gone.status).toBe(404);
});

test('warehouse setup: exit 1 with the API’s reason (no Redshift locally)', async () => {
  const result = await run(['analytics', 'setup']);
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(
    'HTTP 400 from POST /redshift/setup (analytics API): The analytics warehouse is not configured',
  );
});

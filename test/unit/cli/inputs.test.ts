/**
 * What gco reads and decides before any request: manifest and event files, batches, server-sent events,
 * log-follow de-duplication, retry timing, global options from the environment, API URLs and the
 * local endpoints file.
 */
import { describe, expect, test } from '@jest/globals';
import { batchesOf } from '../../../cli/analytics-send.js';
import { normalizeApiUrl, regionOfApiUrl } from '../../../cli/endpoints.js';
import { CliError } from '../../../cli/errors.js';
import { parseEventFile } from '../../../cli/event-files.js';
import { parseDocuments } from '../../../cli/input-files.js';
import { parseLocalEndpoints } from '../../../cli/local-endpoints.js';
import { newLines } from '../../../cli/log-follow.js';
import { resolveGlobalOptions } from '../../../cli/options.js';
import { outputFormatOf } from '../../../cli/output-format.js';
import { DEFAULT_RETRY_POLICY, backoffMs, retryAfterMs } from '../../../cli/retry.js';
import { SseParser, completionText } from '../../../cli/sse.js';

const exitCodeOf = (fn: () => unknown): number | undefined => {
  try {
    fn();
  } catch (error) {
    return error instanceof CliError ? error.exitCode : undefined;
  }
  return 0;
};

describe('manifest files', () => {
  test('YAML documents, a JSON array and a List are flattened in order; empty documents skipped', async () => {
    expect(await parseDocuments('a: 1\n---\n---\nb: 2\n', 'f')).toEqual([{ a: 1 }, { b: 2 }]);
    expect(await parseDocuments('[{"a":1},{"b":2}]', 'f')).toEqual([{ a: 1 }, { b: 2 }]);
    expect(await parseDocuments('kind: List\nitems:\n  - {a: 1}\n  - {b: 2}\n', 'f')).toEqual([
      { a: 1 },
      { b: 2 },
    ]);
  });

  test('malformed YAML is a usage error naming the file and line', async () => {
    await expect(parseDocuments('a: 1\nb: [unclosed\n', 'job.yaml')).rejects.toMatchObject({
      exitCode: 2,
      // file:line:column first; the library's trailing "at line L, column C:" and excerpt are gone.
      message: expect.stringMatching(/^job\.yaml:\d+:\d+: [^\n]*[^:\n]$/),
    });
    await expect(parseDocuments('- 1\n- 2\n', 'list.yaml')).rejects.toMatchObject({ exitCode: 2 });
  });
});

describe('event files', () => {
  test('NDJSON: blank lines skipped, unreadable lines reported with their line number', () => {
    const file = parseEventFile('{"a":1}\n\n{oops\n{"b":2}\n', 'e.ndjson');
    expect(file.events).toEqual([
      { position: 'line 1', event: { a: 1 } },
      { position: 'line 4', event: { b: 2 } },
    ]);
    expect(file.unreadable).toEqual([{ position: 'line 3', message: 'not valid JSON' }]);
  });

  test('a JSON array, even across lines; a broken array is a usage error', () => {
    expect(parseEventFile('[\n {"a":1},\n {"b":2}\n]', 'e.json').events.map((e) => e.position)).toEqual([
      'item 1',
      'item 2',
    ]);
    expect(exitCodeOf(() => parseEventFile('[{"a":1},', 'e.json'))).toBe(2);
  });

  test('batches hold at most 500 events and stay under the byte cap, in order', () => {
    const events = Array.from({ length: 1201 }, (_, i) => ({ position: `line ${i + 1}`, event: { i } }));
    expect(batchesOf(events).map((b) => b.length)).toEqual([500, 500, 201]);
    const big = Array.from({ length: 5 }, (_, i) => ({
      position: `line ${i + 1}`,
      event: { pad: 'x'.repeat(100) },
    }));
    const byBytes = batchesOf(big, 500, 250);
    expect(byBytes.map((b) => b.length)).toEqual([2, 2, 1]);
    expect(byBytes.flat().map((e) => e.position)).toEqual(big.map((e) => e.position));
  });
});

describe('server-sent events', () => {
  test('events complete across chunk boundaries; comments and other fields carry no data', () => {
    const parser = new SseParser();
    expect(parser.push('data: {"choices":[{"text":"He')).toEqual([]);
    expect(parser.push('llo"}]}\n\n: keep-alive\n\nevent: x\r\ndata: [DONE]\r\n\r\n')).toEqual([
      '{"choices":[{"text":"Hello"}]}',
      '[DONE]',
    ]);
  });

  test('completion text from completions, chat deltas and whole answers', () => {
    expect(completionText('{"choices":[{"text":" fox"}]}')).toBe(' fox');
    expect(completionText('{"choices":[{"delta":{"content":"a"}}]}')).toBe('a');
    expect(completionText('{"choices":[{"message":{"content":"whole"}}]}')).toBe('whole');
    expect([completionText('[DONE]'), completionText('{"status":"ok"}'), completionText('not json')]).toEqual(
      [undefined, undefined, undefined],
    );
  });
});

describe('log follow', () => {
  test('each line once, including lines that share a timestamp', () => {
    const cursor = { last: '', atLast: new Set<string>() };
    expect(newLines(cursor, '2025-01-01T00:00:01Z a\n2025-01-01T00:00:01Z b\n')).toEqual([
      '2025-01-01T00:00:01Z a',
      '2025-01-01T00:00:01Z b',
    ]);
    expect(
      newLines(
        cursor,
        '2025-01-01T00:00:01Z a\n2025-01-01T00:00:01Z b\n2025-01-01T00:00:01Z c\n2025-01-01T00:00:02Z d\n',
      ),
    ).toEqual(['2025-01-01T00:00:01Z c', '2025-01-01T00:00:02Z d']);
    expect(newLines(cursor, '2025-01-01T00:00:02Z d\n')).toEqual([]);
  });
});

describe('retries', () => {
  test('full jitter under an exponential, capped ceiling', () => {
    const ceiling = (attempt: number) => backoffMs(attempt, DEFAULT_RETRY_POLICY, () => 0.999999);
    expect([ceiling(1), ceiling(2), ceiling(3), ceiling(10)]).toEqual([249, 499, 999, 7999]);
    expect(backoffMs(3, DEFAULT_RETRY_POLICY, () => 0)).toBe(0);
  });

  test('Retry-After in seconds or as a date, capped', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(retryAfterMs('2', DEFAULT_RETRY_POLICY, now)).toBe(2000);
    expect(retryAfterMs('Wed, 01 Jan 2025 00:00:03 GMT', DEFAULT_RETRY_POLICY, now)).toBe(3000);
    expect(retryAfterMs('3600', DEFAULT_RETRY_POLICY, now)).toBe(DEFAULT_RETRY_POLICY.capMs);
    expect(retryAfterMs(undefined, DEFAULT_RETRY_POLICY, now)).toBeUndefined();
  });
});

describe('global options', () => {
  test('command line, then GCO_* variables, then defaults', () => {
    expect(resolveGlobalOptions({}, {})).toMatchObject({
      local: false,
      project: 'gco',
      globalRegion: 'us-east-2',
      timeoutMs: 60000,
    });
    const env = { GCO_LOCAL: '1', GCO_PROJECT: 'acme', GCO_GLOBAL_REGION: 'eu-west-1' };
    expect(resolveGlobalOptions({}, env)).toMatchObject({
      local: true,
      project: 'acme',
      globalRegion: 'eu-west-1',
    });
    expect(resolveGlobalOptions({ project: 'cli' }, env)).toMatchObject({ project: 'cli' });
    expect(resolveGlobalOptions({ endpointsFile: 'x.json' }, {})).toMatchObject({
      local: true,
      endpointsFile: 'x.json',
    });
  });

  test('the output format: -o, then GCO_OUTPUT, then table whether stdout is a terminal or a pipe', () => {
    expect(outputFormatOf(undefined, undefined)).toBe('table');
    expect(outputFormatOf(undefined, '')).toBe('table');
    expect(outputFormatOf(undefined, 'yaml')).toBe('yaml');
    expect(outputFormatOf('name', 'yaml')).toBe('name');
    // options.ts no longer carries a format of its own to fall back to.
    expect(resolveGlobalOptions({}, { GCO_OUTPUT: 'json' })).not.toHaveProperty('output');
  });

  test('bad values from the command line and the environment are usage errors', () => {
    expect(exitCodeOf(() => outputFormatOf(undefined, 'xml'))).toBe(2);
    expect(exitCodeOf(() => outputFormatOf('csv', undefined))).toBe(2);
    expect(exitCodeOf(() => resolveGlobalOptions({}, { GCO_REGION: 'moon-1' }))).toBe(2);
  });
});

describe('API URLs and the local endpoints file', () => {
  test('https, or http on loopback; trailing slash dropped; the region of execute-api hosts', () => {
    expect(normalizeApiUrl('https://abc.execute-api.eu-west-1.amazonaws.com/prod/', 'x')).toBe(
      'https://abc.execute-api.eu-west-1.amazonaws.com/prod',
    );
    expect(regionOfApiUrl('https://abc.execute-api.cn-north-1.amazonaws.com.cn/prod')).toBe('cn-north-1');
    expect(regionOfApiUrl('https://api.example.com/prod')).toBeUndefined();
    expect(normalizeApiUrl('http://127.0.0.1:4000/prod', 'x')).toBe('http://127.0.0.1:4000/prod');
    expect(exitCodeOf(() => normalizeApiUrl('http://api.example.com/prod', 'x'))).toBe(2);
    expect(exitCodeOf(() => normalizeApiUrl('https://api.example.com/prod?x=1', 'x'))).toBe(2);
  });

  test('an endpoints file without what the CLI needs is a discovery error (exit 3) naming the fields', () => {
    let error: unknown;
    try {
      parseLocalEndpoints('/x/endpoints.json', JSON.stringify({ apis: { regional: {} } }));
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({
      exitCode: 3,
      message: '/x/endpoints.json lacks apis.global, credentials, globalRegion',
    });
  });
});

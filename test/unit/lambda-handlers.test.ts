/**
 * The Node.js 24 Lambda runtime refuses callback-style handlers, and tells them apart by arity: a
 * non-streaming handler declaring three or more parameters `(event, context, callback)` fails every
 * invocation. Every handler module under lambda/ must export an async handler of fewer parameters, or
 * a streaming handler marked by `streamifyResponse` (docs/operations.md, "Runtime support horizon").
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, test } from '@jest/globals';
import { isStreamingHandler } from '../../lambda/shared/streaming.js';

const lambdaRoot = join(process.cwd(), 'lambda');
const entries = readdirSync(lambdaRoot, { withFileTypes: true })
  .filter((d) => d.isDirectory() && d.name !== 'shared')
  .map((d) => d.name)
  .sort();

test('every function folder is checked', () => {
  expect(entries).toContain('control-plane-proxy');
  expect(entries).toContain('inference-stream-proxy');
  expect(entries.length).toBeGreaterThanOrEqual(10);
});

test.each(entries)('%s: the handler is not callback-style', async (entry) => {
  const module = (await import(pathToFileURL(join(lambdaRoot, entry, 'index.ts')).href)) as {
    handler?: unknown;
  };
  const { handler } = module;
  expect(typeof handler).toBe('function');
  const fn = handler as (...args: unknown[]) => unknown;
  expect({ entry, callbackStyle: fn.length >= 3 && !isStreamingHandler(fn) }).toEqual({
    entry,
    callbackStyle: false,
  });
});

test('the streaming proxy is marked as streaming, as the runtime expects', async () => {
  const { handler } = (await import('../../lambda/inference-stream-proxy/index.js')) as { handler: unknown };
  expect(isStreamingHandler(handler)).toBe(true);
});

/**
 * A body labelled JSON that is not JSON is answered 422 by the proxy with the services' HTTPValidationError
 * shape (docs/inference-echo.proxy.md, "Forwarding") and never reaches the model; bytes that are not UTF-8 are
 * the framework's 400; any other body, and any body under another type, is forwarded byte for byte.
 * Generated bad bodies (fast-check) are never answered 5xx, whichever entry (hot path or framework) takes them.
 */
import fc from 'fast-check';
import { send, useEchoProxy } from './harness.js';

describe('inference-proxy JSON bodies', () => {
  const echo = useEchoProxy();

  const post = (body: Buffer | string, contentType: string, target = '/inference/llama/v1/completions') =>
    send(echo.proxy.base, target, { method: 'POST', body, headers: { 'content-type': contentType } });

  test.each([
    ['{"prompt": "hi"', 15, "Expecting ',' delimiter"],
    ['{"prompt": hi}', 11, 'Expecting value'],
    ['not json', 0, 'Expecting value'],
    ['{"a":1} trailing', 8, 'Extra data'],
  ])('%j is 422 json_invalid and never forwarded', async (body, position, message) => {
    const before = echo.model.seen.length;
    const res = await post(body, 'application/json');
    expect(res.status).toBe(422);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['x-request-id']).toBeDefined();
    expect(JSON.parse(res.text)).toEqual({
      detail: [
        {
          loc: ['body', position],
          msg: 'JSON decode error',
          type: 'json_invalid',
          input: {},
          ctx: { error: expect.stringContaining(message) as unknown },
        },
      ],
    });
    expect(echo.model.seen.length).toBe(before);
  });

  test('every JSON media type is checked: +json, parameters, upper case', async () => {
    for (const type of [
      'application/vnd.api+json',
      'Application/JSON; charset=utf-8',
      'application/json;x=1',
    ]) {
      expect({ type, status: (await post('{', type)).status }).toEqual({ type, status: 422 });
    }
  });

  test('a JSON body that is not UTF-8 is 400, as the framework answers it', async () => {
    const res = await post(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]), 'application/json');
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual({
      detail: 'There was an error parsing the body: it is not valid UTF-8',
    });
  });

  test('the same bytes under another type, or another charset, go to the model unchanged', async () => {
    for (const type of ['text/plain', 'application/octet-stream', 'application/json; charset=latin1']) {
      const res = await post('{"prompt": hi}', type);
      expect({ type, status: res.status }).toEqual({ type, status: 200 });
      expect((JSON.parse(res.text) as { body_length: number }).body_length).toBe(14);
    }
  });

  test('valid JSON is forwarded, BOM, __proto__ keys, lone surrogates and deep nesting included', async () => {
    const deep = '['.repeat(200) + ']'.repeat(200);
    for (const body of ['\ufeff{"a":1}', '{"__proto__":{"x":1}}', '{"s":"\\ud800"}', deep, '  []  ']) {
      const res = await post(body, 'application/json');
      expect({ body: body.slice(0, 20), status: res.status }).toEqual({
        body: body.slice(0, 20),
        status: 200,
      });
    }
  });

  test('the check also applies on the framework entry (a percent escape in the path)', async () => {
    const before = echo.model.seen.length;
    const res = await post('{', 'application/json', '/inference/llama/v1/models/a%20b');
    expect(res.status).toBe(422);
    expect(echo.model.seen.length).toBe(before);
  });

  test('generated bad bodies are never a 5xx', async () => {
    const type = fc.constantFrom(
      'application/json',
      'application/problem+json',
      'text/plain',
      'application/json; charset=utf-8',
    );
    const body = fc.oneof(
      fc.string({ maxLength: 64 }),
      fc.json().map((j) => j.slice(0, Math.max(0, j.length - 1))),
      fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
    );
    const path = fc.constantFrom('/v1/completions', '/v1/models/x%2Fy', '/generate');
    await fc.assert(
      fc.asyncProperty(type, body, path, async (contentType, payload, upstreamPath) => {
        const bytes = typeof payload === 'string' ? Buffer.from(payload) : payload;
        if (bytes.length === 0) return; // an empty body is no body
        const res = await post(bytes, contentType, `/inference/llama${upstreamPath}`);
        expect(res.status).toBeLessThan(500);
      }),
      { numRuns: 60 },
    );
  });
});

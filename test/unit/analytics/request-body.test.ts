/**
 * The events handler reads a text body as text (lambda/analytics-events/request-body.ts): its size, its
 * SHA-256 (the idempotency key) and its JSON must be exactly what the byte path gives (rawBody, then
 * hashing and parsing the bytes), for every body: plain, multi-byte, astral, with a lone surrogate,
 * base64-encoded, empty, malformed. Otherwise a batch would get another key, or another record, depending
 * on the path it took.
 */
import { createHash } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { requestBody } from '../../../lambda/analytics-events/request-body.js';
import { parseJsonBody, rawBody } from '../../../lambda/shared/analytics/http.js';

type Body = { body: string | null; isBase64Encoded?: boolean };

/** The byte path: what the handler computed before reading text bodies as text. */
function viaBytes(event: Body) {
  const bytes = rawBody(event);
  return {
    byteLength: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    json: (() => {
      try {
        return { value: parseJsonBody(bytes) };
      } catch (error) {
        return { error };
      }
    })(),
  };
}

function viaRequestBody(event: Body) {
  const body = requestBody(event);
  return {
    byteLength: body.byteLength,
    sha256: body.sha256Hex(),
    json: (() => {
      try {
        return { value: body.json() };
      } catch (error) {
        return { error };
      }
    })(),
  };
}

/** A batch body with `name` as is in the text (JSON.stringify would escape a lone surrogate as \\udXXX). */
const events = (name: string) =>
  `{"Events":[{"event_id":"0b5c5d0e-8d5f-4f6e-9f43-2f7b3d9f1a10","event_name":"${name}"}]}`;

describe('a text body gives the same size, hash and JSON as its bytes', () => {
  test.each([
    ['ASCII', events('level_complete')],
    ['two- and three-byte characters', events('café 关卡完成')],
    ['astral characters (surrogate pairs)', events('🎮 level 🏆')],
    ['whitespace around the JSON', `  \n${events('x')}\t `],
    ['a lone high surrogate (becomes U+FFFD)', events('broken \uD83C here')],
    ['a lone low surrogate at the end', `${events('x')}\uDFFF`],
  ])('%s', (_name, text) => {
    const event = { body: text, isBase64Encoded: false };
    expect(viaRequestBody(event)).toEqual(viaBytes(event));
  });

  test('a lone surrogate is read as U+FFFD, as decoding the bytes reads it', () => {
    const body = requestBody({ body: events('a\uD800b') });
    expect(body.json()).toEqual({
      Events: [{ event_id: '0b5c5d0e-8d5f-4f6e-9f43-2f7b3d9f1a10', event_name: 'a\uFFFDb' }],
    });
    expect(body.byteLength).toBe(Buffer.byteLength(events('a\uFFFDb'), 'utf8'));
  });

  test('a base64-encoded body is its decoded bytes', () => {
    const text = events('base64 ✓');
    const event = { body: Buffer.from(text, 'utf8').toString('base64'), isBase64Encoded: true };
    expect(viaRequestBody(event)).toEqual(viaBytes(event));
    expect(requestBody(event).sha256Hex()).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
  });
});

describe('bad bodies are the same 400s on both paths', () => {
  test.each([
    ['no body', { body: null }, 'empty_body'],
    ['an empty body', { body: '' }, 'empty_body'],
    ['malformed JSON', { body: '{"Events": [' }, 'malformed_json'],
    ['malformed JSON with a lone surrogate', { body: '{"Events": "\uD800' }, 'malformed_json'],
    [
      'base64 of bytes that are not UTF-8',
      { body: Buffer.from([0x7b, 0xff, 0x7d]).toString('base64'), isBase64Encoded: true },
      'body_not_utf8',
    ],
  ] as const)('%s', (_name, event, reason) => {
    const text = viaRequestBody(event);
    expect(text).toEqual(viaBytes(event));
    expect(text.json.error).toMatchObject({ statusCode: 400, reason });
  });
});

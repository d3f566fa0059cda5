import { isBinaryBody } from '../../../lambda/shared/http-forward.js';

const text = Buffer.from('{"ok":true,"name":"ü"}');
const invalidUtf8 = Buffer.from([0x66, 0x6f, 0xff, 0xfe, 0x00]);

describe('binary detection for API Gateway bodies', () => {
  test.each([
    ['application/json', text, false],
    ['application/json; charset=utf-8', text, false],
    ['application/problem+json', text, false],
    ['text/plain; charset=UTF-8', text, false],
    ['application/x-ndjson', text, false],
    ['image/svg+xml', text, false],
    ['application/octet-stream', text, true],
    ['image/png', text, true],
    ['text/plain; charset=iso-8859-1', text, true],
    ['text/plain', invalidUtf8, true],
    ['application/json', invalidUtf8, true],
  ])('%s → binary=%s', (contentType, body, binary) => {
    expect(isBinaryBody({ 'content-type': [contentType] }, body)).toBe(binary);
  });

  test('no content type: decided by the bytes', () => {
    expect(isBinaryBody({}, text)).toBe(false);
    expect(isBinaryBody({}, invalidUtf8)).toBe(true);
  });

  test('compressed bodies are binary whatever the media type; empty bodies are text', () => {
    expect(isBinaryBody({ 'content-type': ['application/json'], 'content-encoding': ['gzip'] }, text)).toBe(
      true,
    );
    expect(
      isBinaryBody({ 'content-type': ['application/json'], 'content-encoding': ['identity'] }, text),
    ).toBe(false);
    expect(isBinaryBody({ 'content-type': ['image/png'] }, Buffer.alloc(0))).toBe(false);
  });
});

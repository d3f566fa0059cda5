/**
 * The JSON check every body passes before it is parsed (cluster/shared/json-scan.ts): it accepts exactly
 * what JSON.parse accepts, except what the services refuse by rule (too deep, lone surrogate escapes,
 * `__proto__` keys), and reports the first problem where Python's json would.
 */
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { DEFAULT_MAX_JSON_DEPTH, scanJson } from '../../cluster/shared/json-scan.js';

const parses = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

describe('scanJson', () => {
  test('any JSON value is accepted, unless it holds a __proto__ key (property)', () => {
    fc.assert(
      fc.property(fc.json({ maxDepth: 6 }), (text) => {
        expect([undefined, 'proto_key']).toContain(scanJson(text)?.kind);
      }),
      { seed: 42, numRuns: 500 },
    );
  });

  test('accepts only what JSON.parse parses; a syntax error only for what it refuses (property)', () => {
    const almostJson = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 30 }),
      fc.json().chain((t) => fc.nat(t.length).map((cut) => t.slice(0, cut) + t.slice(cut + 1))),
      fc.json().map((t) => `${t},`),
    );
    fc.assert(
      fc.property(almostJson, (text) => {
        const problem = scanJson(text);
        if (parses(text)) expect(problem?.kind).not.toBe('syntax');
        else expect(problem).toBeDefined();
      }),
      { seed: 42, numRuns: 2000 },
    );
  });

  test.each([
    ['', 'Expecting value', 0],
    ['{', 'Expecting property name enclosed in double quotes', 1],
    ['{"a":}', 'Expecting value', 5],
    ["{'a':1}", 'Expecting property name enclosed in double quotes', 1],
    ['{"a" 1}', "Expecting ':' delimiter", 5],
    ['[1 2]', "Expecting ',' delimiter", 3],
    ['[1,]', 'Expecting value', 3],
    ['{"a":1}x', 'Extra data', 7],
    ['01', 'Extra data', 1],
    ['"abc', 'Unterminated string starting at', 0],
    ['"a\u0001"', 'Invalid control character at', 2],
    ['"\\x"', 'Invalid \\escape', 1],
    ['"\\u12"', 'Invalid \\uXXXX escape', 1],
    ['NaN', 'Expecting value', 0],
  ])('%j → %s at %d', (text, message, position) => {
    expect(scanJson(text)).toEqual({ kind: 'syntax', message, position });
  });

  test('nesting: the limit is allowed, one more level is refused with the path to it', () => {
    const nested = (depth: number) => `{"a":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
    expect(scanJson(nested(DEFAULT_MAX_JSON_DEPTH))).toBeUndefined();
    const problem = scanJson(nested(DEFAULT_MAX_JSON_DEPTH + 1));
    expect(problem).toMatchObject({ kind: 'depth' });
    expect(problem?.kind === 'depth' && problem.path.slice(0, 3)).toEqual(['a', 0, 0]);
    // 100,000 levels are refused as quickly, without ever recursing that deep.
    expect(scanJson('['.repeat(100_000))).toMatchObject({ kind: 'depth' });
    // The third array is too deep at maxDepth 2; it sits at [0][0].
    expect(scanJson('[[[1]]]', 2)).toEqual({ kind: 'depth', path: [0, 0], position: 2 });
  });

  test('surrogate escapes must pair up', () => {
    expect(scanJson('"\\ud83d\\ude00"')).toBeUndefined();
    expect(scanJson('{"k":["\\ud800"]}')).toMatchObject({ kind: 'surrogate', path: ['k', 0] });
    expect(scanJson('"\\udc00"')).toMatchObject({ kind: 'surrogate' });
    expect(scanJson('{"\\ud800x":1}')).toMatchObject({ kind: 'surrogate' });
  });

  test('a __proto__ key is refused however it is spelt; other keys are free', () => {
    expect(scanJson('{"a":{"__proto__":{}}}')).toMatchObject({ kind: 'proto_key', path: ['a', '__proto__'] });
    expect(scanJson('{"\\u005f_proto__":1}')).toMatchObject({ kind: 'proto_key' });
    expect(scanJson('{"constructor":{"prototype":1},"__proto":2}')).toBeUndefined();
  });
});

/**
 * Checks a JSON text before anything parses or walks it (docs/api-limits.md): RFC 8259 syntax, nesting
 * depth, `\u` escapes that pair up (a lone surrogate cannot be stored or forwarded as UTF-8) and no
 * `__proto__` key. One pass that stops at the first problem and reports its position and its place in
 * the document; it descends at most `maxDepth` levels, so a hostile body can never exhaust the stack.
 */

export type JsonLoc = (string | number)[];

export type JsonProblem =
  /** Not JSON: Python's json message (what FastAPI reports in ctx.error) and the character position. */
  | { kind: 'syntax'; message: string; position: number }
  /** Objects and arrays nested deeper than the limit; `path` leads to the container that is too deep. */
  | { kind: 'depth'; path: JsonLoc; position: number }
  /** A `\uD800`–`\uDFFF` escape without its pair. */
  | { kind: 'surrogate'; path: JsonLoc; position: number }
  /** A `__proto__` key (it would replace an object's prototype on assignment). */
  | { kind: 'proto_key'; path: JsonLoc; position: number };

/** The deepest nesting of objects and arrays a body may have unless a service allows more. */
export const DEFAULT_MAX_JSON_DEPTH = 64;

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);
const ESCAPES = new Set([...'"\\/bfnrtu'].map((c) => c.charCodeAt(0)));
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

interface Frame {
  array: boolean;
  /** Index of the current element, or the key of the current member. */
  key: string | number;
}

class Problem extends Error {
  constructor(readonly problem: JsonProblem) {
    super(problem.kind);
  }
}

/** The first problem of `text`, or undefined when it is acceptable JSON within `maxDepth`. */
export function scanJson(text: string, maxDepth: number = DEFAULT_MAX_JSON_DEPTH): JsonProblem | undefined {
  let i = 0;
  const stack: Frame[] = [];
  const path = (): JsonLoc => stack.map((f) => f.key);
  const syntax = (message: string, position = i): never => {
    throw new Problem({ kind: 'syntax', message, position });
  };
  const skipWs = () => {
    while (i < text.length && WS.has(text.charCodeAt(i))) i++;
  };

  /** Reads a string starting at its opening quote; returns its raw text (quotes included). */
  const readString = (): string => {
    const start = i;
    i++; // opening quote
    for (;;) {
      if (i >= text.length) syntax('Unterminated string starting at', start);
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return text.slice(start, i);
      }
      if (c < 0x20) syntax('Invalid control character at');
      if (c !== 0x5c) {
        i++;
        continue;
      }
      const escape = text.charCodeAt(i + 1);
      if (!ESCAPES.has(escape)) syntax('Invalid \\escape');
      if (escape !== 0x75) {
        i += 2;
        continue;
      }
      const at = i;
      const unit = hexUnit(i + 2) ?? syntax('Invalid \\uXXXX escape');
      i += 6;
      const lone = () => new Problem({ kind: 'surrogate', path: path(), position: at });
      if (unit >= 0xdc00 && unit <= 0xdfff) throw lone();
      if (unit >= 0xd800 && unit <= 0xdbff) {
        const low = text.startsWith('\\u', i) ? hexUnit(i + 2) : undefined;
        if (low === undefined || low < 0xdc00 || low > 0xdfff) throw lone();
        i += 6;
      }
    }
  };
  const hexUnit = (at: number): number | undefined => {
    for (let k = at; k < at + 4; k++) if (!isHex(text.charCodeAt(k))) return undefined;
    return parseInt(text.slice(at, at + 4), 16);
  };

  const readNumber = () => {
    const start = i;
    if (text.charCodeAt(i) === 0x2d) i++;
    if (text.charCodeAt(i) === 0x30) i++;
    else if (isDigit(text.charCodeAt(i))) while (isDigit(text.charCodeAt(i))) i++;
    else syntax('Expecting value', start);
    // An incomplete fraction or exponent ends the number there, as in Python: what follows is then
    // "Extra data" at the top level or a missing delimiter inside a container.
    if (text.charCodeAt(i) === 0x2e && isDigit(text.charCodeAt(i + 1))) {
      i++;
      while (isDigit(text.charCodeAt(i))) i++;
    }
    const e = text.charCodeAt(i);
    if (e === 0x65 || e === 0x45) {
      let k = i + 1;
      const sign = text.charCodeAt(k);
      if (sign === 0x2b || sign === 0x2d) k++;
      if (isDigit(text.charCodeAt(k))) {
        i = k;
        while (isDigit(text.charCodeAt(i))) i++;
      }
    }
  };

  /** A scalar value, or the opening of an object/array (pushed on the stack). */
  const readValue = () => {
    skipWs();
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) {
      if (stack.length >= maxDepth) throw new Problem({ kind: 'depth', path: path(), position: i });
      i++;
      stack.push({ array: c === 0x5b, key: 0 });
      skipWs();
      const close = c === 0x7b ? 0x7d : 0x5d;
      if (text.charCodeAt(i) === close) {
        i++;
        stack.pop();
        return;
      }
      if (c === 0x7b) readKey();
      else readValue();
      return;
    }
    if (c === 0x22) readString();
    else if (c === 0x2d || isDigit(c)) readNumber();
    else if (text.startsWith('true', i)) i += 4;
    else if (text.startsWith('false', i)) i += 5;
    else if (text.startsWith('null', i)) i += 4;
    else syntax('Expecting value');
  };

  /** A member's key and colon, then its value. */
  const readKey = () => {
    skipWs();
    if (text.charCodeAt(i) !== 0x22) syntax('Expecting property name enclosed in double quotes');
    const at = i;
    const raw = readString();
    const key = raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
    const frame = stack[stack.length - 1];
    if (frame) frame.key = key;
    if (key === '__proto__') throw new Problem({ kind: 'proto_key', path: path(), position: at });
    skipWs();
    if (text.charCodeAt(i) !== 0x3a) syntax("Expecting ':' delimiter");
    i++;
    readValue();
  };

  try {
    if (text.length === 0) syntax('Expecting value', 0);
    readValue();
    // After each value: close containers or move to the next element, until the document ends.
    for (;;) {
      skipWs();
      const frame = stack[stack.length - 1];
      if (!frame) break;
      const c = text.charCodeAt(i);
      if (c === (frame.array ? 0x5d : 0x7d)) {
        i++;
        stack.pop();
      } else if (c === 0x2c) {
        i++;
        if (frame.array) {
          frame.key = (frame.key as number) + 1;
          readValue();
        } else {
          readKey();
        }
      } else {
        syntax("Expecting ',' delimiter");
      }
    }
    if (i < text.length) syntax('Extra data');
    return undefined;
  } catch (error) {
    if (error instanceof Problem) return error.problem;
    throw error;
  }
}

/**
 * Checks a JSON text before anything parses or walks it (docs/api-limits.md): RFC 8259 syntax, nesting
 * depth, `\u` escapes that pair up (a lone surrogate cannot be stored or forwarded as UTF-8) and no
 * `__proto__` key. One pass that stops at the first problem and reports its position and its place in
 * the document; it descends at most `maxDepth` levels, so a hostile body can never exhaust the stack.
 */

type JsonLoc = (string | number)[];

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
  const scanner = new Scanner(text, maxDepth);
  try {
    if (text.length === 0) scanner.syntax('Expecting value', 0);
    scanner.readValue();
    scanner.readRest();
    if (scanner.i < text.length) scanner.syntax('Extra data');
    return undefined;
  } catch (error) {
    if (error instanceof Problem) return error.problem;
    throw error;
  }
}

/** One pass over one text: `i` is the position, `stack` the open containers; a problem is thrown. */
class Scanner {
  i = 0;
  private readonly stack: Frame[] = [];

  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
  ) {}

  private path(): JsonLoc {
    return this.stack.map((f) => f.key);
  }

  syntax(message: string, position = this.i): never {
    throw new Problem({ kind: 'syntax', message, position });
  }

  private skipWs(): void {
    const { text } = this;
    while (this.i < text.length && WS.has(text.charCodeAt(this.i))) this.i++;
  }

  /** Reads a string starting at its opening quote; returns its raw text (quotes included). */
  private readString(): string {
    const { text } = this;
    const start = this.i;
    this.i++; // opening quote
    for (;;) {
      if (this.i >= text.length) this.syntax('Unterminated string starting at', start);
      const c = text.charCodeAt(this.i);
      if (c === 0x22) {
        this.i++;
        return text.slice(start, this.i);
      }
      if (c < 0x20) this.syntax('Invalid control character at');
      if (c !== 0x5c) {
        this.i++;
        continue;
      }
      const escape = text.charCodeAt(this.i + 1);
      if (!ESCAPES.has(escape)) this.syntax('Invalid \\escape');
      if (escape === 0x75) this.readUnicodeEscape();
      else this.i += 2;
    }
  }

  /** A `\uXXXX` escape at `i`, with its pair when it is a high surrogate. */
  private readUnicodeEscape(): void {
    const at = this.i;
    const unit = this.hexUnit(this.i + 2) ?? this.syntax('Invalid \\uXXXX escape');
    this.i += 6;
    if (unit >= 0xdc00 && unit <= 0xdfff) throw this.loneSurrogate(at);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const low = this.text.startsWith('\\u', this.i) ? this.hexUnit(this.i + 2) : undefined;
      if (low === undefined || low < 0xdc00 || low > 0xdfff) throw this.loneSurrogate(at);
      this.i += 6;
    }
  }

  private loneSurrogate(position: number): Problem {
    return new Problem({ kind: 'surrogate', path: this.path(), position });
  }

  private hexUnit(at: number): number | undefined {
    const { text } = this;
    for (let k = at; k < at + 4; k++) if (!isHex(text.charCodeAt(k))) return undefined;
    return parseInt(text.slice(at, at + 4), 16);
  }

  private readNumber(): void {
    const { text } = this;
    const start = this.i;
    if (text.charCodeAt(this.i) === 0x2d) this.i++;
    if (text.charCodeAt(this.i) === 0x30) this.i++;
    else if (isDigit(text.charCodeAt(this.i))) while (isDigit(text.charCodeAt(this.i))) this.i++;
    else this.syntax('Expecting value', start);
    // An incomplete fraction or exponent ends the number there, as in Python: what follows is then
    // "Extra data" at the top level or a missing delimiter inside a container.
    if (text.charCodeAt(this.i) === 0x2e && isDigit(text.charCodeAt(this.i + 1))) {
      this.i++;
      while (isDigit(text.charCodeAt(this.i))) this.i++;
    }
    const e = text.charCodeAt(this.i);
    if (e === 0x65 || e === 0x45) {
      let k = this.i + 1;
      const sign = text.charCodeAt(k);
      if (sign === 0x2b || sign === 0x2d) k++;
      if (isDigit(text.charCodeAt(k))) {
        this.i = k;
        while (isDigit(text.charCodeAt(this.i))) this.i++;
      }
    }
  }

  /** A scalar value, or the opening of an object/array (pushed on the stack). */
  readValue(): void {
    this.skipWs();
    const { text } = this;
    const c = text.charCodeAt(this.i);
    if (c === 0x7b || c === 0x5b) return this.open(c);
    if (c === 0x22) this.readString();
    else if (c === 0x2d || isDigit(c)) this.readNumber();
    else if (text.startsWith('true', this.i)) this.i += 4;
    else if (text.startsWith('false', this.i)) this.i += 5;
    else if (text.startsWith('null', this.i)) this.i += 4;
    else this.syntax('Expecting value');
  }

  /** An object or array opening at `i` (`c` is its bracket): pushed, then its first member or element. */
  private open(c: number): void {
    const { stack } = this;
    if (stack.length >= this.maxDepth)
      throw new Problem({ kind: 'depth', path: this.path(), position: this.i });
    this.i++;
    stack.push({ array: c === 0x5b, key: 0 });
    this.skipWs();
    const close = c === 0x7b ? 0x7d : 0x5d;
    if (this.text.charCodeAt(this.i) === close) {
      this.i++;
      stack.pop();
      return;
    }
    if (c === 0x7b) this.readKey();
    else this.readValue();
  }

  /** A member's key and colon, then its value. */
  private readKey(): void {
    this.skipWs();
    if (this.text.charCodeAt(this.i) !== 0x22)
      this.syntax('Expecting property name enclosed in double quotes');
    const at = this.i;
    const raw = this.readString();
    const key = raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
    const frame = this.stack[this.stack.length - 1];
    if (frame) frame.key = key;
    if (key === '__proto__') throw new Problem({ kind: 'proto_key', path: this.path(), position: at });
    this.skipWs();
    if (this.text.charCodeAt(this.i) !== 0x3a) this.syntax("Expecting ':' delimiter");
    this.i++;
    this.readValue();
  }

  /** After each value: close containers or move to the next element, until the document ends. */
  readRest(): void {
    const { stack } = this;
    for (;;) {
      this.skipWs();
      const frame = stack[stack.length - 1];
      if (!frame) return;
      const c = this.text.charCodeAt(this.i);
      if (c === (frame.array ? 0x5d : 0x7d)) {
        this.i++;
        stack.pop();
      } else if (c === 0x2c) {
        this.i++;
        if (frame.array) {
          frame.key = (frame.key as number) + 1;
          this.readValue();
        } else {
          this.readKey();
        }
      } else {
        this.syntax("Expecting ',' delimiter");
      }
    }
  }
}

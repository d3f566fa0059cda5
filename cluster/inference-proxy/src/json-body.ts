/**
 * A body labelled JSON must be JSON before it reaches a model server: the proxy answers 422 with the
 * services' HTTPValidationError shape (FastAPI's `json_invalid` item, Python's message) rather than passing
 * it on for the model to answer in its own words (docs/inference-proxy.md, "Forwarding"). Only syntax is
 * checked: nesting depth, `__proto__` keys and lone surrogate escapes are JSON a model may accept, and the
 * body is forwarded byte for byte either way.
 */
import { isUtf8 } from 'node:buffer';
import { HttpError, RequestValidationError } from '../../shared/errors.js';
import { scanJson } from '../../shared/json-scan.js';

/** `application/json` and every `application/*+json` type, as the service framework reads them. */
const JSON_TYPE = /^application\/([\w.+-]+\+)?json\s*(;|$)/i;
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)"?/i;
/** Deep enough for any body under the 1 MiB limit: only syntax is checked here, never depth. */
const UNBOUNDED_DEPTH = 1024 * 1024;

/** Whether the proxy checks this body: a JSON media type in UTF-8 (a declared other charset is the model's business). */
function isUtf8JsonType(contentType: string | undefined): boolean {
  if (contentType === undefined || !JSON_TYPE.test(contentType)) return false;
  const charset = CHARSET.exec(contentType)?.[1]?.toLowerCase();
  return charset === undefined || charset === 'utf-8' || charset === 'utf8';
}

/**
 * The error to answer instead of forwarding, or undefined when the body may go on: 400 for bytes that are
 * not UTF-8 (the framework's answer, as FastAPI's), 422 `json_invalid` for text that is not JSON.
 */
export function invalidJsonBody(
  contentType: string | undefined,
  body: Buffer | undefined,
): HttpError | RequestValidationError | undefined {
  if (body === undefined || body.length === 0 || !isUtf8JsonType(contentType)) return undefined;
  if (!isUtf8(body)) return new HttpError(400, 'There was an error parsing the body: it is not valid UTF-8');
  let text = body.toString('utf8');
  // A UTF-8 byte order mark is allowed, as Python's json reads it.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const problem = scanJson(text, UNBOUNDED_DEPTH);
  if (problem === undefined) return undefined;
  if (problem.kind === 'syntax') return jsonInvalid(problem.position, problem.message);
  // The scan stopped at something JSON allows (a `__proto__` key, a lone surrogate): the rest must still parse.
  try {
    JSON.parse(text);
    return undefined;
  } catch {
    return jsonInvalid(problem.position, 'Invalid JSON after this position');
  }
}

/** FastAPI's item for a body that is not JSON. */
function jsonInvalid(position: number, message: string): RequestValidationError {
  return new RequestValidationError([
    {
      loc: ['body', position],
      msg: 'JSON decode error',
      type: 'json_invalid',
      input: {},
      ctx: { error: message },
    },
  ]);
}

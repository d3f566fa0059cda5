/**
 * Validation of the administrative requests (docs/analytics-api.md): path ids are UUIDs, bodies are UTF-8
 * JSON objects with only the documented fields, Name is 1–128 characters after trimming, Description at
 * most 1024, Enabled a JSON boolean. Every failure is a 400 whose message names the field.
 */
import { EdgeHttpError } from '../errors.js';
import { isPlainObject, parseJsonBody, rejectUnknownFields } from './http.js';
import { canonicalUuid, isUuid } from './ids.js';

const NAME_MAX = 128;
const DESCRIPTION_MAX = 1024;
/** U+FFFD in UTF-8. */
const REPLACEMENT_CHARACTER = Buffer.from('\uFFFD', 'utf8');
/** Admin bodies are a few hundred bytes; anything far larger is refused before parsing. */
const ADMIN_BODY_MAX_BYTES = 64 * 1024;

// C0/C1 control characters have no place in a display name.
// eslint-disable-next-line no-control-regex
const CONTROL_RE = /[\u0000-\u001f\u007f-\u009f]/;

const bad = (message: string, reason = 'invalid_field') => new EdgeHttpError(400, message, reason);

/** A UUID path parameter, canonicalised; 400 naming the parameter otherwise. */
export function pathId(params: Record<string, string | undefined> | null, name: string): string {
  const value = params?.[name];
  if (!isUuid(value)) throw bad(`Path parameter ${name} must be a UUID`, 'invalid_path_parameter');
  return canonicalUuid(value);
}

/** The body as a JSON object with no fields beyond `allowed`. */
function objectBody(bytes: Buffer, allowed: readonly string[]): Record<string, unknown> {
  if (bytes.length > ADMIN_BODY_MAX_BYTES) {
    throw new EdgeHttpError(
      413,
      `Request body too large (at most ${ADMIN_BODY_MAX_BYTES} bytes)`,
      'body_too_large',
    );
  }
  // API Gateway hands a Lambda proxy a text body, with U+FFFD in place of bytes that are not UTF-8:
  // that character is how a body that was not UTF-8 on the wire shows, so it is refused like one.
  if (bytes.includes(REPLACEMENT_CHARACTER)) {
    throw new EdgeHttpError(400, 'Request body is not valid UTF-8', 'body_not_utf8');
  }
  const body = parseJsonBody(bytes);
  if (!isPlainObject(body)) throw bad('Request body must be a JSON object', 'body_not_object');
  rejectUnknownFields(body, allowed);
  return body;
}

const length = (s: string) => [...s].length;

function requiredName(body: Record<string, unknown>): string {
  const raw = body['Name'];
  if (raw === undefined) throw bad('Name is required');
  if (typeof raw !== 'string') throw bad('Name must be a string');
  const name = raw.trim();
  if (length(name) < 1 || length(name) > NAME_MAX) {
    throw bad(`Name must be 1 to ${NAME_MAX} characters after trimming`);
  }
  if (CONTROL_RE.test(name)) throw bad('Name must not contain control characters');
  return name;
}

function optionalDescription(body: Record<string, unknown>): string {
  const raw = body['Description'];
  if (raw === undefined) return '';
  if (typeof raw !== 'string') throw bad('Description must be a string');
  const description = raw.trim();
  if (length(description) > DESCRIPTION_MAX) {
    throw bad(`Description must be at most ${DESCRIPTION_MAX} characters`);
  }
  return description;
}

export interface NamedInput {
  readonly name: string;
  readonly description: string;
}

/** POST /applications and POST …/authorizations: `{"Name": …, "Description"?: …}`. */
export function namedInput(bytes: Buffer): NamedInput {
  const body = objectBody(bytes, ['Name', 'Description']);
  return { name: requiredName(body), description: optionalDescription(body) };
}

/** PUT …/authorizations/{API_KEY_ID}: `{"Enabled": true|false}` (a JSON boolean, not "true"). */
export function enabledInput(bytes: Buffer): boolean {
  const body = objectBody(bytes, ['Enabled']);
  const enabled = body['Enabled'];
  if (enabled === undefined) throw bad('Enabled is required');
  if (typeof enabled !== 'boolean') throw bad('Enabled must be a boolean (true or false)');
  return enabled;
}

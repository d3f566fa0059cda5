/**
 * The error bodies every service answers with (FastAPI's shapes, docs/service-framework.md): 422
 * `HTTPValidationError` and `{"detail": "…"}` for every other error. Response schemas declare them per
 * status code; the services' OpenAPI documents name them as the shared components of the same titles.
 */
import { Type, type Static } from 'typebox';
import { FreeFormObject } from './schema.js';

const ValidationError = Type.Object(
  {
    loc: Type.Array(Type.Union([Type.String(), Type.Integer()])),
    msg: Type.String(),
    type: Type.String(),
    input: Type.Optional(Type.Unknown()),
    ctx: Type.Optional(FreeFormObject),
  },
  { title: 'ValidationError' },
);

export const HTTPValidationError = Type.Object(
  { detail: Type.Array(ValidationError) },
  { title: 'HTTPValidationError', description: 'Validation Error' },
);
export type HTTPValidationError = Static<typeof HTTPValidationError>;

/** `{"detail": "…"}`; `description` says when a route answers it. */
export function ErrorDetail(description: string) {
  return Type.Object({ detail: Type.String() }, { title: 'ErrorDetail', description });
}
export type ErrorDetail = Static<ReturnType<typeof ErrorDetail>>;

/** 403 of every route behind the HMAC envelope. */
export const EnvelopeRejected = ErrorDetail('HMAC envelope verification failed');
/** 413 of every route with a body over the limit. */
export const BodyTooLarge = ErrorDetail('Request body too large');

/**
 * The state machine of an endpoint's desired state (docs/inference-endpoints.md, "State machine"): each
 * operation maps the current spec to the next one, or says it does not apply (409). Pure, so a change
 * that lost a race is simply recomputed from the newer record.
 */
import type { EndpointSpec } from '../../../../contracts/inference-endpoints.js';
import { HttpError } from '../../../shared/errors.js';

/** The next spec, or `unchanged` when the endpoint is already as asked (no new generation). */
export type Transition = (spec: EndpointSpec, name: string) => EndpointSpec | 'unchanged';

export const scaleTo =
  (replicas: number): Transition =>
  (spec) => ({ ...spec, replicas });

/** The replaced image becomes `previous_image`, so rollback undoes an update-image as it undoes a promote. */
export const updateImage =
  (image: string): Transition =>
  (spec) =>
    image === spec.image ? 'unchanged' : { ...spec, image, previous_image: spec.image };

export const stop: Transition = (spec) => (spec.stopped ? 'unchanged' : { ...spec, stopped: true });

export const start: Transition = (spec) => (spec.stopped ? { ...spec, stopped: false } : 'unchanged');

/** Sets (or replaces) the canary: a second Deployment with `image` receiving `weight`% of requests. */
export const setCanary =
  (image: string, weight: number): Transition =>
  (spec) => ({ ...spec, canary: { image, weight } });

/** The canary's image becomes the primary image; the replaced one is kept for rollback. */
export const promote: Transition = (spec, name) => {
  if (!spec.canary) throw new HttpError(409, `Endpoint ${name} has no canary to promote`);
  return { ...spec, image: spec.canary.image, previous_image: spec.image, canary: null };
};

/** Back to the image the last promote or update-image replaced; a canary is dropped. Once only. */
export const rollback: Transition = (spec, name) => {
  if (spec.previous_image === null) {
    throw new HttpError(409, `Endpoint ${name} has no previous image to roll back to`);
  }
  return { ...spec, image: spec.previous_image, previous_image: null, canary: null };
};

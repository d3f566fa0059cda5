/**
 * The jobs operations accept only exact-match label selectors: `key=value` pairs joined by commas. They
 * are passed to the Kubernetes API server-side; anything else (set-based, `!=`, bare keys) is a 422.
 */
import { RequestValidationError, type LocSegment } from '../../shared/errors.js';

// Kubernetes label key: optional DNS-subdomain prefix + '/', then a name of 1-63 chars; value 0-63 chars.
const NAME = '[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?';
const PREFIX = '[a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?/';
const PAIR = new RegExp(`^(?:${PREFIX})?${NAME}=(?:${NAME})?$`);

/** Validates and normalises (trims around commas) an equality selector; throws a 422 naming `loc`. */
export function equalitySelector(selector: string, loc: LocSegment[]): string {
  const pairs = selector.split(',').map((p) => p.trim());
  const bad = pairs.find((p) => !PAIR.test(p));
  if (bad !== undefined) {
    throw new RequestValidationError([
      {
        loc,
        msg: `Value error, label_selector must be comma-separated key=value pairs (exact match only); ${JSON.stringify(bad)} is not`,
        type: 'value_error',
        input: selector,
      },
    ]);
  }
  return pairs.join(',');
}

/**
 * The envelope verifier every authenticated service builds from its environment: keys from
 * serviceKeySource (Secrets Manager in a deployment, SIGNING_KEY(S) locally) unless given, and the
 * freshness window ENVELOPE_FRESHNESS_SECONDS within the bounds envelope.ts enforces (docs/envelope.md).
 */
import { EnvReader } from '../../contracts/env/reader.js';
import {
  DEFAULT_FRESHNESS_SECONDS,
  EnvelopeVerifier,
  MAX_FRESHNESS_SECONDS,
  MIN_FRESHNESS_SECONDS,
  type KeySource,
} from '../../contracts/envelope/envelope.js';
import { serviceKeySource } from './signing-keys.js';

export function envelopeVerifierFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  keys?: KeySource,
): EnvelopeVerifier {
  const read = new EnvReader(env);
  const freshnessSeconds = read.integer('ENVELOPE_FRESHNESS_SECONDS', DEFAULT_FRESHNESS_SECONDS, {
    min: MIN_FRESHNESS_SECONDS,
    max: MAX_FRESHNESS_SECONDS,
  });
  read.finish();
  return new EnvelopeVerifier({ keys: keys ?? serviceKeySource(env), freshnessSeconds });
}

/**
 * Seed and run counts of the generated-input suites. The seed is fixed so that every CI run tries the
 * same inputs; fast-check prints the seed and the path of a failing run in its failure message, and
 * `FUZZ_SEED=<seed>` replays it (or explores other inputs). `FUZZ_RUNS_SCALE` multiplies every run count
 * (e.g. 10 for a longer local session).
 */
import type { Parameters } from 'fast-check';

const DEFAULT_SEED = 1_302_024;

const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? DEFAULT_SEED);
const SCALE = Number(process.env.FUZZ_RUNS_SCALE ?? 1);

/** fast-check parameters for a property that sends `numRuns` requests (times the scale). */
export function fuzzParameters<T>(numRuns: number): Parameters<T> {
  return { seed: FUZZ_SEED, numRuns: Math.max(1, Math.round(numRuns * SCALE)) };
}

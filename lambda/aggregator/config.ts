/** Aggregator settings from the environment (docs/aggregator.md, "Configuration"). */
import { parseRegionList } from '../shared/regional-apis.js';

/** API Gateway cuts the integration at 29 s; 27 s leaves room to merge, serialize and return. */
export const DEFAULT_BUDGET_MS = 27_000;
export const MAX_BUDGET_MS = 28_000;
export const MIN_BUDGET_MS = 100;

export interface AggregatorSettings {
  /** Total time a request may spend, discovery included, before every unanswered region times out. */
  budgetMs: number;
  /** Optional tighter cap for a single region. */
  regionTimeoutMs?: number;
  /** Regions that must appear in every answer, discovered or not (`REGIONS`). */
  expectedRegions: string[];
}

function milliseconds(name: string, value: string | undefined): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < MIN_BUDGET_MS || n > MAX_BUDGET_MS) {
    throw new Error(
      `${name} must be an integer number of milliseconds from ${MIN_BUDGET_MS} to ${MAX_BUDGET_MS}`,
    );
  }
  return n;
}

export function settingsFromEnv(env: NodeJS.ProcessEnv): AggregatorSettings {
  const regionTimeoutMs = milliseconds('AGGREGATOR_REGION_TIMEOUT_MS', env.AGGREGATOR_REGION_TIMEOUT_MS);
  return {
    budgetMs: milliseconds('AGGREGATOR_BUDGET_MS', env.AGGREGATOR_BUDGET_MS) ?? DEFAULT_BUDGET_MS,
    ...(regionTimeoutMs !== undefined ? { regionTimeoutMs } : {}),
    expectedRegions: parseRegionList(env.REGIONS),
  };
}

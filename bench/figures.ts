/**
 * What a benchmark module reports: each figure measured against its anchor in the same run, so the ratio
 * means something on a shared, noisy machine. `bench/run.ts` prints every figure and writes the latest
 * results to bench/RESULTS.md.
 */

export interface BenchFigure {
  /** What was measured, e.g. "inference-proxy throughput, 50 MiB". */
  readonly name: string;
  /** The measured value with its unit, e.g. "512 MiB/s". */
  readonly measured: string;
  /** What it is compared with and that anchor's value, e.g. "nginx proxy_buffering off: 560 MiB/s". */
  readonly anchor: string;
  /** measured ÷ anchor (or the ratio the goal is stated in); null when the anchor could not run. */
  readonly ratio: number | null;
  /** The goal as a sentence, e.g. "≥ 0.9× nginx"; omitted when the figure has none. */
  readonly goal?: string;
  /** Whether the goal was met in this run; omitted when there is no goal or no ratio. */
  readonly met?: boolean;
  /** Anything a reader needs: "nginx not installed", sample counts, spread. */
  readonly note?: string;
}

/** A benchmark module: `bench/<name>.ts` or `bench/<name>.bench.ts` exporting `run` (bench/run.ts prints and records it). */
export type BenchRun = () => Promise<readonly BenchFigure[]>;

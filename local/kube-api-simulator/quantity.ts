// Kubernetes resource quantities ("500m", "2", "1Gi", "1e3") for the simulator. Numbers are plain floats:
// precise enough for scheduling and quota arithmetic at simulator scale.

// One quantity grammar for the whole project: the simulator uses the services' parser and formatters.
import { formatBytes, formatCpu, tryParseQuantity } from '../../cluster/shared/quantity.js';

/** Parses a quantity; undefined when it is not one. Numbers are accepted as-is. */
export const parseQuantity = (v: unknown): number | undefined => tryParseQuantity(v);

/** Formats a resource amount by name: cpu-like names in cores, memory/storage in bytes, counts as integers. */
export function formatResource(name: string, value: number): string {
  if (name === 'cpu' || name.endsWith('.cpu')) return formatCpu(value);
  if (/memory|storage/.test(name)) return formatBytes(value);
  return Number.isInteger(value) ? String(value) : formatCpu(value);
}

/** metrics-server style: CPU in nanocores ("123456789n"), memory in KiB ("1024Ki"). */
export function formatNanoCpu(cores: number): string {
  return `${Math.round(cores * 1e9)}n`;
}

export function formatKi(bytes: number): string {
  return `${Math.round(bytes / 1024)}Ki`;
}

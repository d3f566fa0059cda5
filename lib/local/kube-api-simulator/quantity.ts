// Kubernetes resource quantities ("500m", "2", "1Gi", "1e3"). Numbers are plain floats: precise enough
// for scheduling and quota arithmetic at simulator scale.

const SUFFIX: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

const QUANTITY = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:([eE][+-]?\d+)|(n|u|m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?)$/;

/** Parses a quantity; undefined when it is not one. Numbers are accepted as-is. */
export function parseQuantity(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v !== 'string') return undefined;
  const m = QUANTITY.exec(v.trim());
  if (!m) return undefined;
  const base = Number(m[1]);
  if (m[2]) return base * 10 ** Number(m[2].slice(1));
  return base * (SUFFIX[m[3] ?? ''] ?? 1);
}

export function isQuantity(v: unknown): boolean {
  return parseQuantity(v) !== undefined;
}

/** CPU as the API server prints it: whole cores ("2") or millicores ("1500m"). */
export function formatCpu(cores: number): string {
  const milli = Math.round(cores * 1000);
  return milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`;
}

/** Memory and other byte sizes: the largest binary suffix that divides exactly. */
export function formatBytes(bytes: number): string {
  const b = Math.round(bytes);
  for (const s of ['Ei', 'Pi', 'Ti', 'Gi', 'Mi', 'Ki'] as const) {
    const f = SUFFIX[s] ?? 1;
    if (b !== 0 && b % f === 0) return `${b / f}${s}`;
  }
  return String(b);
}

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

/**
 * Kubernetes resource quantities (k8s.io/apimachinery resource.Quantity): `<number><suffix>` where the
 * suffix is binary SI (Ki…Ei), decimal SI (n u m k M G T P E) or a decimal exponent (e3, E-2).
 * Values are returned in base units as a JS number: cores for CPU, bytes for memory, devices for GPUs.
 */
import { PlatformError } from '../../contracts/runtime/errors.js';

const BINARY_SI: Record<string, number> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

const DECIMAL_SI: Record<string, number> = {
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
};

// The exponent form is tried before the bare `E` (exa) suffix: `1E3` is 1000, `1E` is 10^18.
const QUANTITY = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]))?$/;

export class QuantityError extends PlatformError {
  override readonly name = 'QuantityError';
  constructor(readonly input: unknown) {
    super(`${JSON.stringify(input)} is not a valid Kubernetes quantity`);
  }
}

/** Parses a quantity string (or a plain JSON number) into base units; throws QuantityError when invalid. */
export function parseQuantity(input: string | number): number {
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) throw new QuantityError(input);
    return input;
  }
  const match = QUANTITY.exec(input.trim());
  if (!match || input.trim() !== input) throw new QuantityError(input);
  const [, sign, digits, exponent, suffix] = match;
  const magnitude = Number(digits);
  let value: number;
  if (exponent !== undefined) value = magnitude * 10 ** Number(exponent.slice(1));
  else if (suffix !== undefined && suffix in BINARY_SI) value = magnitude * (BINARY_SI[suffix] ?? 1);
  else value = magnitude * (DECIMAL_SI[suffix ?? ''] ?? 1);
  if (!Number.isFinite(value)) throw new QuantityError(input);
  return sign === '-' ? -value : value;
}

/** Like parseQuantity but answers undefined instead of throwing (for optional or untrusted fields). */
export function tryParseQuantity(input: unknown): number | undefined {
  if (typeof input !== 'string' && typeof input !== 'number') return undefined;
  try {
    return parseQuantity(input);
  } catch {
    return undefined;
  }
}

/** Formats CPU cores the way Kubernetes does for small values (`250m`) and whole cores otherwise. */
export function formatCpu(cores: number): string {
  const millis = Math.round(cores * 1000);
  return millis % 1000 === 0 ? String(millis / 1000) : `${millis}m`;
}

/** Formats bytes with the largest binary suffix that divides them exactly (`1536Mi`, `2Gi`). */
export function formatBytes(bytes: number): string {
  const rounded = Math.round(bytes);
  for (const suffix of ['Ei', 'Pi', 'Ti', 'Gi', 'Mi', 'Ki'] as const) {
    const unit = BINARY_SI[suffix] ?? 1;
    if (rounded !== 0 && rounded % unit === 0) return `${rounded / unit}${suffix}`;
  }
  return String(rounded);
}

/**
 * Nesting depth of objects and arrays, computed with an explicit stack so that a hostile, very deep
 * manifest cannot overflow the call stack. The manifest object itself is depth 1.
 */
import type { JsonPath } from './json.js';

interface Frame {
  value: object;
  depth: number;
  parent: Frame | undefined;
  key: string | number | undefined;
}

function pathOf(frame: Frame): JsonPath {
  const path: (string | number)[] = [];
  for (let f: Frame | undefined = frame; f?.key !== undefined; f = f.parent) path.push(f.key);
  return path.reverse();
}

/**
 * The path of the first object or array nested deeper than maxDepth, or undefined when there is none.
 * Never descends past maxDepth + 1, so cycles and shared sub-objects are bounded too.
 */
export function findTooDeep(root: unknown, maxDepth: number): JsonPath | undefined {
  if (typeof root !== 'object' || root === null) return undefined;
  // Deepest level at which each object was explored: a shared object is re-walked only when reached deeper.
  const explored = new Map<object, number>();
  const stack: Frame[] = [{ value: root, depth: 1, parent: undefined, key: undefined }];
  for (let frame = stack.pop(); frame; frame = stack.pop()) {
    if (frame.depth > maxDepth) return pathOf(frame);
    if ((explored.get(frame.value) ?? 0) >= frame.depth) continue;
    explored.set(frame.value, frame.depth);
    const entries: [string | number, unknown][] = Array.isArray(frame.value)
      ? frame.value.map((v, i): [number, unknown] => [i, v])
      : Object.entries(frame.value);
    // Reversed so the walk (and the reported path) follows document order.
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, value] = entries[i] ?? [0, undefined];
      if (typeof value === 'object' && value !== null)
        stack.push({ value, depth: frame.depth + 1, parent: frame, key });
    }
  }
  return undefined;
}

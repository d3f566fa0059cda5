/** Test helper: a response's JSON body, typed loosely so assertions can reach into it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests assert on arbitrary JSON shapes
export async function jsonOf(res: Response): Promise<any> {
  return res.json();
}

/** Reads `a.b.0.c` from a loosely typed JSON value (objects and arrays). */
export function at(v: unknown, path: string): unknown {
  let cur = v;
  for (const part of path.split('.')) {
    if (Array.isArray(cur)) cur = cur[Number(part)];
    else if (typeof cur === 'object' && cur !== null)
      cur = (cur as Record<string, unknown>)[part]; // indexing plain JSON
    else return undefined;
  }
  return cur;
}

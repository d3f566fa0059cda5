/** Test helper: a response's JSON body, typed loosely so assertions can reach into it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests assert on arbitrary JSON shapes
export async function jsonOf(res: Response): Promise<any> {
  return res.json();
}

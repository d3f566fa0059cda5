/** Paging through DynamoDB Query and Scan results. */

interface Page {
  Items?: Record<string, unknown>[];
  LastEvaluatedKey?: Record<string, unknown>;
}

/**
 * Every item of a Query or Scan, one page at a time (a page stops at 1 MB), following
 * LastEvaluatedKey. `read` sends the request that starts at `startKey` (undefined: the first page).
 */
export async function* pagesOf<T>(
  read: (startKey: Record<string, unknown> | undefined) => Promise<Page>,
): AsyncGenerator<T[]> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await read(startKey);
    yield (page.Items ?? []) as T[];
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
}

// Runs `work` over `items`, at most `size` at a time, in order of start: the ledger's loops (auto-reconcile, the bulk
// runner) and the harnesses that load it share this one pool.
export async function inPool<T>(items: readonly T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const runners = Array.from({ length: Math.min(size, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++];
      if (item !== undefined) await work(item);
    }
  });
  await Promise.all(runners);
}

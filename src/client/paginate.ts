export interface Page {
  limit: number;
  offset: number;
}

/**
 * Walks an offset-paginated list page by page. Lists are newest first, so an item created while iterating
 * shifts the pages by one: the iterator skips ids it has already yielded rather than repeating them.
 */
export async function* paginate<T>(fetchPage: (page: Page) => Promise<{ items: T[]; total: number }>, pageSize = 100): AsyncGenerator<T, void, undefined> {
  const seen = new Set<unknown>();
  for (let offset = 0; ; ) {
    const { items, total } = await fetchPage({ limit: pageSize, offset });
    for (const item of items) {
      const id = (item as { id?: unknown })?.id;
      if (id !== undefined) {
        if (seen.has(id)) continue;
        seen.add(id);
      }
      yield item;
    }
    offset += items.length;
    if (items.length === 0 || offset >= total) return;
  }
}

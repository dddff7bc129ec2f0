// The floor of bench:retrieval: rank memories by how many distinct query words
// they share (lower-cased words of 3+ letters, no stemming, no weighting). Any
// search worth having must beat it.
const wordsOf = (text: string) => new Set(text.toLowerCase().match(/[a-z0-9]{3,}/g) ?? []);

export function sharedWordRanking(query: string, memories: { key: string; name: string; content: string }[], limit: number): string[] {
  const wanted = wordsOf(query);
  return memories
    .map((memory, i) => {
      const words = wordsOf(`${memory.name} ${memory.content}`);
      let shared = 0;
      for (const word of wanted) if (words.has(word)) shared++;
      return { key: memory.key, shared, i };
    })
    .filter((m) => m.shared > 0)
    .sort((a, b) => b.shared - a.shared || a.i - b.i)
    .slice(0, limit)
    .map((m) => m.key);
}

// bench:retrieval's in-process transport (BENCH_TRANSPORT=direct), for quick
// iterations on the dev half without a production build: the same store and
// search functions the routes call, on a fresh SQLite file, in a child process
// started with the configuration's environment. Prints one JSON line: for every
// query, the keys of the memories returned, best first.
import { db } from "@/lib/db";
import { embedBatch } from "@/lib/memory/embedder";
import { createMemories } from "@/lib/memory/memory-store";
import { searchMemories } from "@/lib/memory/search";
import { ensureIndex } from "@/lib/memory/search-index";
import { MEMORIES, QUERIES } from "../tests/fixtures/memory/retrieval";

const LIMIT = Number(process.env.BENCH_LIMIT ?? 10);

async function main() {
  const agent = await db.agent.create({ data: { name: `retrieval-${Date.now().toString(36)}` } });
  const actor = { type: "system" as const, id: null, label: "bench" };
  const items = MEMORIES.map((m) => ({
    name: m.name,
    content: m.content,
    source: m.source as "manual",
    scope: "agent" as const,
    agentId: agent.id,
  }));
  const { ids } = await createMemories({ items, actor });
  // With a provider: embed everything and load the index before the first query.
  while ((await embedBatch()) > 0);
  await ensureIndex();
  const keyOf = new Map(ids.map((id, i) => [id, MEMORIES[i]!.key]));
  const out: { top: string[]; mode: string }[] = [];
  for (const query of QUERIES) {
    const { results, mode } = await searchMemories({
      query: query.query,
      limit: LIMIT,
      scope: "all",
      viewer: { kind: "agent", agentId: agent.id, isLead: false },
      record: { kind: "search", agentId: agent.id },
    });
    out.push({ top: results.map((r) => keyOf.get(r.id) ?? "?"), mode });
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

// Memory's background work: retry failed embeddings, load the keyword and vector indexes,
// run hygiene, and on SQLite put new memories into the FTS5 index (fts-backlog.ts).
// Registered for instrumentation.ts, and also started on first use of the memory API
// (so a server without the hook still embeds and cleans up).
// With several instances on one PostgreSQL database, the retry and hygiene run on
// the leader only (lib/jobs/leader.ts; always this process on SQLite), while each
// instance keeps its own keyword and vector indexes in step with the table
// (keyword-search.pg.ts, search-index.pg.ts).
import "server-only";
import { usesPostgres } from "@/lib/db";
import { registerJob } from "@/lib/jobs/background";
import { isLeader } from "@/lib/jobs/leader";
import { kickEmbedder } from "./embedder";
import { activeEmbedder, localEmbedderEnabled } from "./embedders";
import { drainFtsBacklog } from "./fts-backlog";
import { runHygiene } from "./hygiene";
import { ensureKeywordIndex } from "./keyword-search";
import { ensureIndex } from "./search-index";
import { relatedStems } from "./semantic/related-terms";
import { wordVectors } from "./semantic/word-vectors";

const RETRY_EVERY_MS = 5_000;
/** PostgreSQL: how often an idle instance reads the other instances' memory changes (searches also do, first). */
const CATCH_UP_EVERY_MS = 5_000;
/** SQLite: how often the memories written since are put into the FTS5 index (fts-backlog.ts; its queries also do, first). */
const FTS_EVERY_MS = 1_000;
const HYGIENE_EVERY_MS = Number(process.env.SWARMDECK_MEMORY_HYGIENE_MS ?? 10 * 60_000) || 10 * 60_000;

const globalState = globalThis as unknown as { swarmdeckMemoryJobs?: () => void };

export function startMemoryJobs(): () => void {
  if (globalState.swarmdeckMemoryJobs) return globalState.swarmdeckMemoryJobs;
  if (usesPostgres()) void import("./keyword-search.pg").then((pg) => pg.ensureKeywordIndexPg());
  else {
    void ensureKeywordIndex();
    void drainFtsBacklog();
  }
  if (activeEmbedder()) {
    void ensureIndex();
    kickEmbedder();
  }
  // Load the word vectors and related terms now rather than on the first search.
  if (localEmbedderEnabled()) setTimeout(warmSemanticData, 0).unref();
  const retry = setInterval(() => {
    if (!activeEmbedder()) return;
    void isLeader().then((leading) => {
      if (leading) kickEmbedder();
    });
  }, RETRY_EVERY_MS);
  let hygieneRunning = false;
  const hygiene = setInterval(() => {
    if (hygieneRunning) return;
    hygieneRunning = true;
    isLeader()
      .then((leading) => (leading ? runHygiene() : null))
      .catch((error) => console.error("[swarmdeck] memory hygiene failed", error))
      .finally(() => {
        hygieneRunning = false;
      });
  }, HYGIENE_EVERY_MS);
  const catchUp = usesPostgres()
    ? setInterval(() => {
        void import("./keyword-search.pg")
          .then((pg) => pg.catchUpKeywordIndexPg())
          .catch((error) => console.error("[swarmdeck] keyword index catch-up failed", error));
        if (!activeEmbedder()) return;
        void import("./search-index.pg")
          .then((pg) => pg.catchUpIndexPg())
          .catch((error) => console.error("[swarmdeck] memory index catch-up failed", error));
      }, CATCH_UP_EVERY_MS)
    : setInterval(() => void drainFtsBacklog(), FTS_EVERY_MS);
  retry.unref();
  hygiene.unref();
  catchUp.unref();
  const stop = () => {
    clearInterval(retry);
    clearInterval(hygiene);
    clearInterval(catchUp);
    globalState.swarmdeckMemoryJobs = undefined;
  };
  globalState.swarmdeckMemoryJobs = stop;
  return stop;
}

/** Starts the jobs once per process, unless background jobs are disabled. */
export function ensureMemoryJobs(): void {
  if (process.env.SWARMDECK_DISABLE_JOBS === "1") return;
  startMemoryJobs();
}

registerJob({ name: "memory", start: startMemoryJobs });

function warmSemanticData() {
  wordVectors();
  relatedStems("");
}

import { describe, expect, it } from "vitest";
import { CHUNK_SIZE, chunkMarkdown } from "./chunker";

describe("chunkMarkdown", () => {
  it("keeps short text as one chunk and drops empty text", () => {
    expect(chunkMarkdown("  # Title\n\nshort note  ")).toEqual(["# Title\n\nshort note"]);
    expect(chunkMarkdown("   \n ")).toEqual([]);
  });

  it("splits long markdown at headings near the target size, with overlap", () => {
    const section = (n: number) => `## Section ${n}\n\n${"The deploy needs the staging token. ".repeat(30)}`;
    const text = [1, 2, 3, 4, 5].map(section).join("\n\n");
    const chunks = chunkMarkdown(text);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(CHUNK_SIZE);
    expect(chunks[1]?.startsWith("## Section") || chunks[1]?.includes("## Section")).toBe(true);
    // Nothing is lost: every section heading is in some chunk.
    for (let n = 1; n <= 5; n++) expect(chunks.some((chunk) => chunk.includes(`## Section ${n}`))).toBe(true);
  });

  it("terminates on long text with no whitespace at all and covers all of it", () => {
    const text = "x".repeat(25_000);
    const chunks = chunkMarkdown(text);
    expect(chunks.length).toBeGreaterThan(12);
    expect(chunks.length).toBeLessThan(20);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(CHUNK_SIZE);
    expect(chunks.join("").length).toBeGreaterThanOrEqual(text.length);
  });

  it("terminates on pathological inputs (only newlines between characters, tiny sizes, huge overlap)", () => {
    expect(chunkMarkdown("a\n".repeat(5000), { size: 50, overlap: 10_000 }).length).toBeGreaterThan(10);
    expect(chunkMarkdown("#".repeat(9000), { size: 1, overlap: 1 }).length).toBeGreaterThan(10);
    expect(chunkMarkdown("🙂".repeat(3000)).length).toBeGreaterThan(1);
  });
});

// The embedded semantic default's vectors: unit length, stable, and closer for
// texts that mean the same than for unrelated ones.
import { beforeAll, describe, expect, it } from "vitest";
import { ensureSemanticData } from "../../../scripts/launch";
import { LOCAL_DIMS, localEmbedding } from "./local-embedder";

beforeAll(() => ensureSemanticData(() => {}), 300_000);

const cos = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

describe("localEmbedding", () => {
  it("is a unit vector of the index's dimensions, the same for the same text", () => {
    const a = localEmbedding("Database connections run out under load")!;
    expect(a).toHaveLength(LOCAL_DIMS);
    expect(cos(a, a)).toBeCloseTo(1, 4);
    expect(localEmbedding("Database connections run out under load")).toEqual(a);
  });

  it("puts a paraphrase closer than an unrelated note", () => {
    const lesson = localEmbedding("The photographs on the product page load slowly on phones")!;
    const paraphrase = localEmbedding("images take ages to appear for mobile visitors")!;
    const unrelated = localEmbedding("quarterly invoice totals were rounded the wrong way")!;
    expect(cos(lesson, paraphrase)).toBeGreaterThan(cos(lesson, unrelated) + 0.05);
  });

  it("brings texts sharing a rare identifier closer even though the vocabulary lacks it", () => {
    const a = localEmbedding("the zxqv_worker crashed at start")!;
    const b = localEmbedding("restarting zxqv_worker fixed it")!;
    const c = localEmbedding("restarting the scheduler fixed it")!;
    expect(cos(a, b)).toBeGreaterThan(cos(a, c));
  });

  it("answers a zero vector for a text with no words", () => {
    expect([...localEmbedding("  ?! ")!].every((x) => x === 0)).toBe(true);
  });
});

import { describe, expect, it } from "vitest";
import { queryStems, toFtsQuery } from "./text";

describe("toFtsQuery", () => {
  it("quotes every word so FTS5 syntax in user text is inert", () => {
    expect(toFtsQuery('deploy AND "token" NOT (x OR y) name:foo * ^bar -baz')).toBe(
      '"deploy" OR "token" OR "x" OR "y" OR "name" OR "foo" OR "bar" OR "baz"',
    );
    expect(toFtsQuery('"unbalanced')).toBe('"unbalanced"');
    expect(toFtsQuery("NEAR(a b, 3)")).toBe('"near" OR "b" OR "3"');
  });

  it("can require every word (the cheap first pass of keyword search)", () => {
    expect(toFtsQuery("flaky (checkout) test", "AND")).toBe('"flaky" AND "checkout" AND "test"');
  });

  it("returns null when nothing is searchable and keeps stop words only when alone", () => {
    expect(toFtsQuery("*** ((( ''' ---")).toBeNull();
    expect(toFtsQuery("")).toBeNull();
    expect(toFtsQuery("how to")).toBe('"how" OR "to"');
  });

  it("folds diacritics and case like unicode61", () => {
    expect(toFtsQuery("Café RÉSUMÉ")).toBe('"cafe" OR "resume"');
  });
});

describe("queryStems", () => {
  it("stems like FTS5's porter tokenizer and drops stop words", () => {
    expect(queryStems("How do I fix the failing migrations?")).toEqual(["fix", "fail", "migrat"]);
  });
});

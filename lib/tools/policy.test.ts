import { describe, expect, it } from "vitest";
import { parseCapabilities, readCapabilities } from "@/lib/contracts/capabilities";
import { decideToolPolicy } from "./policy";

describe("tool policy from profile and capabilities.yaml", () => {
  it("standard and power apply tool changes at once, with network", () => {
    for (const profile of ["standard", "power"] as const) {
      expect(decideToolPolicy({ profile })).toMatchObject({ changes: "apply", network: true });
    }
  });

  it("paranoid makes every change a proposal and gives tools no network", () => {
    const policy = decideToolPolicy({ profile: "paranoid", capabilities: "network: on\n" });
    expect(policy).toMatchObject({ changes: "propose", network: false });
    expect(policy.reason).toContain("paranoid");
  });

  it("capabilities.yaml can forbid self-extension, ask for proposals, or close the network", () => {
    expect(decideToolPolicy({ profile: "power", capabilities: "self_extension: off\n" })).toMatchObject({ changes: "forbidden" });
    expect(decideToolPolicy({ profile: "power", capabilities: "self_extension: propose\n" })).toMatchObject({ changes: "propose" });
    const closed = decideToolPolicy({ profile: "power", capabilities: "tools:\n  allow: [Read]\nnetwork: off\n" });
    expect(closed).toMatchObject({ changes: "apply", network: false });
    expect(closed.reason).toContain("network: off");
  });

  it("the keys it reads are part of the capabilities.yaml contract", () => {
    for (const value of ["on", "propose", "off"]) {
      expect(parseCapabilities(`self_extension: ${value}\nnetwork: off\n`)).toMatchObject({
        ok: true,
        value: { self_extension: value, network: "off" },
      });
    }
    expect(parseCapabilities("self_extension: maybe\n").ok).toBe(false);
  });

  it("an older-shape capabilities.yaml that closes the network closes it for tools too, as the worker reads it", () => {
    for (const text of ["scopes:\n  filesystem: workspace\n  network: none\n", "network: none\n", "network: disabled\n"]) {
      // The worker enforces this file as network off (no WebFetch, no WebSearch) ...
      expect(readCapabilities(text)).toMatchObject({ ok: true, value: { network: "off" } });
      // ... so the agent's own tools get no network either.
      expect(decideToolPolicy({ profile: "power", capabilities: text }), text).toMatchObject({ network: false });
    }
    expect(decideToolPolicy({ profile: "power", capabilities: "scopes:\n  network: open\n" })).toMatchObject({ network: true });
  });

  it("an unreadable capabilities.yaml grants no network", () => {
    expect(decideToolPolicy({ profile: "power", capabilities: "network: [on\n" })).toMatchObject({ network: false });
  });
});

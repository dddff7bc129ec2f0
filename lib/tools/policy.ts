// What an agent may do with its own tools, from its security profile and its
// capabilities.yaml (both set by operators). One pure function, so the app's
// routes, the worker (through GET /api/worker/tools) and the tests ask the same question.
import { parse } from "yaml";
import { readCapabilities } from "@/lib/contracts/capabilities";
import type { SecurityProfile } from "@/lib/contracts/common";
import type { ToolPolicy } from "@/lib/contracts/tools";

/** The two keys of capabilities.yaml this reads: `self_extension: on | propose | off` and `network: on | off`. */
export function readToolCapabilities(text: string | null | undefined): { selfExtension?: string; network?: string } {
  if (!text?.trim()) return {};
  // As the worker reads the file for the agent (an older-shape file as its upgrade, where
  // `scopes: {network: none}` is network off), so the agent's tools never get a network
  // the same file takes from WebFetch.
  const read = readCapabilities(text);
  if (read.ok) return { selfExtension: read.value.self_extension, network: read.value.network };
  try {
    const data = parse(text) as Record<string, unknown> | null;
    if (!data || typeof data !== "object") return { network: "off" };
    const word = (value: unknown) =>
      typeof value === "boolean" ? (value ? "on" : "off") : typeof value === "string" ? value.trim().toLowerCase() : undefined;
    // Not a cage the worker can enforce (it fails the agent's tasks): no network, and self_extension as written.
    return { selfExtension: word(data.self_extension), network: "off" };
  } catch {
    // An unreadable file grants nothing extra: the profile alone decides, and network stays off.
    return { network: "off" };
  }
}

export function decideToolPolicy({ profile, capabilities }: { profile: SecurityProfile; capabilities?: string | null }): ToolPolicy {
  const caps = readToolCapabilities(capabilities);
  const network = caps.network !== "off" && profile !== "paranoid";
  const networkWhy = network
    ? "tools may use the network"
    : caps.network === "off"
      ? "capabilities.yaml sets network: off, so tools get no network"
      : "the paranoid profile gives tools no network";
  if (caps.selfExtension === "off") {
    return { changes: "forbidden", network, reason: `capabilities.yaml sets self_extension: off; ${networkWhy}` };
  }
  if (profile === "paranoid") {
    return {
      changes: "propose",
      network,
      reason: `the paranoid profile makes every tool change a proposal an operator approves; ${networkWhy}`,
    };
  }
  if (caps.selfExtension === "propose") {
    return { changes: "propose", network, reason: `capabilities.yaml sets self_extension: propose; ${networkWhy}` };
  }
  return { changes: "apply", network, reason: `tool changes apply at once; ${networkWhy}` };
}

// The setup script (docs/architecture.md "Setup script", reference 000): the global script,
// then the agent's, between two markers, under one shebang. Pure string functions:
// the bundle endpoint and the worker both use them (no server-only imports here).

import { createHash } from "node:crypto";

export const SETUP_MARKER_START = "# === Agent-managed setup (from DB) ===";
export const SETUP_MARKER_END = "# === End agent-managed setup ===";
const SHEBANG = "#!/bin/bash";

function stripShebang(script: string): string {
  return script.replace(/^#![^\n]*\n?/, "");
}

function body(script: string): string {
  return stripShebang(script.replace(/\r\n/g, "\n")).trim();
}

/** The marker block: global first, then the agent's, each without its own shebang. */
export function composeSetupBlock({ global, agent }: { global: string; agent: string }): string {
  const parts = [body(global), body(agent)].filter((part) => part.length > 0);
  return [SETUP_MARKER_START, ...parts, SETUP_MARKER_END].join("\n");
}

/** What says "the composed script changed": the worker re-runs the script only when this does. */
export function setupScriptHash(composed: string): string {
  return createHash("sha256").update(composed).digest("hex");
}

/** A complete start-up.sh: shebang, then the marker block. */
export function composeSetupScript(scripts: { global: string; agent: string }): string {
  return `${SHEBANG}\n${composeSetupBlock(scripts)}\n`;
}

/**
 * Puts the block at the top of an existing start-up file (after its shebang, which
 * is kept), replacing a block a previous run put there: one block however often it runs.
 */
export function prependSetupBlock(existing: string, scripts: { global: string; agent: string }): string {
  const block = composeSetupBlock(scripts);
  const text = existing.replace(/\r\n/g, "\n");
  const start = text.indexOf(SETUP_MARKER_START);
  const end = text.indexOf(SETUP_MARKER_END, start + 1);
  if (start !== -1 && end !== -1) {
    const after = text.slice(end + SETUP_MARKER_END.length).replace(/^\n/, "");
    return `${text.slice(0, start)}${block}\n${after}`;
  }
  const shebang = /^#![^\n]*/.exec(text)?.[0];
  const rest = shebang ? text.slice(shebang.length).replace(/^\n/, "") : text;
  return `${shebang ?? SHEBANG}\n${block}\n${rest}`;
}

/**
 * What an agent's edit of start-up.sh means for its stored script: only what lies
 * between the markers, minus the global script the block started with. With no
 * markers, the whole file minus its shebang. "" when nothing is left.
 */
export function extractAgentSetupScript(fileContent: string, globalScript: string): string {
  const text = fileContent.replace(/\r\n/g, "\n");
  const start = text.indexOf(SETUP_MARKER_START);
  const end = text.indexOf(SETUP_MARKER_END, start + 1);
  let inner = start !== -1 && end !== -1 ? text.slice(start + SETUP_MARKER_START.length, end) : stripShebang(text);
  inner = inner.replace(/^\n/, "").replace(/\n$/, "");
  const global = body(globalScript);
  if (global && inner.trimStart().startsWith(global)) {
    inner = inner.trimStart().slice(global.length);
  }
  return inner.trim();
}

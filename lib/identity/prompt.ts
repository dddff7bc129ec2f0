// System prompt assembly (DESIGN.md "Identity rules"). (Owned by the identity work.)
import "server-only";

export type AssembledPrompt = {
  systemPrompt: string;
  /** True when the agent has no SOUL and BOOTSTRAP.md is its system prompt. */
  bootstrap: boolean;
  /** The SOUL.md version the prompt was built from (outcome per identity version). */
  soulVersionId: string | null;
};

export async function buildSystemPrompt(_args: { agentId: string }): Promise<AssembledPrompt> {
  return { systemPrompt: "", bootstrap: false, soulVersionId: null };
}

// What the in-memory indexes (vector-index.ts, keyword-index.ts) share: the
// visibility filter they apply inside their scans, and small integer codes for
// agent ids, so a memory's owner is one number in a typed array, not a string.

export type IndexFilter = {
  /** Include agent-scope memories (of `agentCode` only, when it is >= 0). */
  agent: boolean;
  /** Include swarm-scope memories. */
  swarm: boolean;
  /** Restrict agent-scope memories to one agent (-1: every agent). */
  agentCode: number;
};

/** The code `find` answers for an agent with nothing indexed: it matches no memory. */
export const UNKNOWN_AGENT = -3;

export class AgentCodes {
  private readonly codes = new Map<string, number>();

  /** A stable code for an agent id, made on first use. */
  code(agentId: string): number {
    let code = this.codes.get(agentId);
    if (code === undefined) {
      code = this.codes.size;
      this.codes.set(agentId, code);
    }
    return code;
  }

  /** Looks a code up without making one. */
  find(agentId: string): number {
    return this.codes.get(agentId) ?? UNKNOWN_AGENT;
  }
}

import { describe, expect, it } from "vitest";
import { composeSetupScript, extractAgentSetupScript, prependSetupBlock, SETUP_MARKER_END, SETUP_MARKER_START } from "./compose";

const scripts = { global: "#!/bin/bash\napt-get install -y jq", agent: "pip install httpx" };

function count(haystack: string, needle: string) {
  return haystack.split(needle).length - 1;
}

describe("composeSetupScript", () => {
  it("puts global then agent between the markers under one shebang", () => {
    const composed = composeSetupScript(scripts);
    expect(composed).toBe(`#!/bin/bash\n${SETUP_MARKER_START}\napt-get install -y jq\npip install httpx\n${SETUP_MARKER_END}\n`);
    expect(count(composed, "#!/bin/bash")).toBe(1);
  });

  it("leaves an empty block when neither script has content", () => {
    expect(composeSetupScript({ global: "", agent: "  \n" })).toBe(`#!/bin/bash\n${SETUP_MARKER_START}\n${SETUP_MARKER_END}\n`);
  });
});

describe("prependSetupBlock", () => {
  it("prepends to an operator's existing start-up file and keeps its content after the block", () => {
    const result = prependSetupBlock("#!/bin/bash\necho operator", scripts);
    expect(result.indexOf(SETUP_MARKER_START)).toBeLessThan(result.indexOf("echo operator"));
    expect(result.startsWith("#!/bin/bash\n")).toBe(true);
    expect(count(result, "#!/bin/bash")).toBe(1);
  });

  it("is idempotent: one block however often it runs, with the newest content", () => {
    let file = "#!/bin/bash\necho operator\n";
    for (let i = 0; i < 5; i++) file = prependSetupBlock(file, { global: "echo g", agent: `echo agent ${i}` });
    expect(count(file, SETUP_MARKER_START)).toBe(1);
    expect(count(file, SETUP_MARKER_END)).toBe(1);
    expect(file).toContain("echo agent 4");
    expect(file).not.toContain("echo agent 3");
    expect(count(file, "echo operator")).toBe(1);
  });
});

describe("extractAgentSetupScript", () => {
  it("keeps only the agent's part: no markers, no global script, no operator content", () => {
    const file = `${prependSetupBlock("#!/bin/bash\necho operator", scripts).replace("pip install httpx", "pip install httpx\nnpm i -g pnpm")}`;
    expect(extractAgentSetupScript(file, scripts.global)).toBe("pip install httpx\nnpm i -g pnpm");
  });

  it("takes the whole file minus the shebang when the agent removed the markers", () => {
    expect(extractAgentSetupScript("#!/bin/bash\ncargo install ripgrep\n", "")).toBe("cargo install ripgrep");
  });
});

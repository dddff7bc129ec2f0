import { describe, expect, it } from "vitest";
import { interpreterFor, pickStartupFile } from "./startup-file";

describe("pickStartupFile", () => {
  it("takes the first existing start-up file in the documented order", () => {
    expect(pickStartupFile(["start-up", "start-up.ts", "README.md"])).toEqual({ name: "start-up.ts", exists: true });
    expect(pickStartupFile(["start-up.bash", "start-up.sh"])).toEqual({ name: "start-up.sh", exists: true });
  });

  it("falls back to creating start-up.sh", () => {
    expect(pickStartupFile(["SOUL.md"])).toEqual({ name: "start-up.sh", exists: false });
  });
});

describe("interpreterFor", () => {
  it("runs a file by its shebang first", () => {
    expect(interpreterFor("start-up.js", "#!/usr/bin/env node\nconsole.log(1)")).toEqual(["/usr/bin/env", "node", "start-up.js"]);
    expect(interpreterFor("start-up.sh", "#!/bin/bash\necho hi")).toEqual(["/bin/bash", "start-up.sh"]);
  });

  it("falls back to the extension", () => {
    expect(interpreterFor("start-up.js", "console.log(1)")).toEqual(["node", "start-up.js"]);
    expect(interpreterFor("start-up.bun", "")).toEqual(["bun", "start-up.bun"]);
    expect(interpreterFor("start-up", "echo hi")).toEqual(["bash", "start-up"]);
  });
});

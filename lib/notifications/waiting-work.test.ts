import { describe, expect, it } from "vitest";
import { noticeRequest } from "@/lib/alerts/webhook";
import { waitingNotification } from "./waiting-work";

const item = (id: string, title: string) => ({ id, title, createdAt: 1 });

describe("waiting-work notification", () => {
  it("says what waits, with links to where it waits", () => {
    const note = waitingNotification(
      {
        proposals: [item("p1", "SOUL of ann: be kinder"), item("p2", "TOOLS of bo: add rg")],
        offered: [item("t1", "Refactor the parser (from ann)")],
      },
      "https://deck.example.com/",
    );
    expect(note.title).toBe("Swarmdeck: 2 identity proposals and 1 offered task waiting");
    expect(note.message).toBe(
      [
        "Identity proposals to review:",
        "- SOUL of ann: be kinder",
        "- TOOLS of bo: add rg",
        "https://deck.example.com/proposals",
        "",
        "Tasks agents offered:",
        "- Refactor the parser (from ann)",
        "https://deck.example.com/tasks?status=offered",
      ].join("\n"),
    );
    expect(note.click).toBe("https://deck.example.com/proposals");
    const many = waitingNotification({ proposals: [], offered: ["a", "b", "c", "d", "e"].map((id) => item(id, `task ${id}`)) }, "http://x");
    expect(many.title).toBe("Swarmdeck: 5 offered tasks waiting");
    expect(many.message).toContain("- and 2 more");
    expect(many.click).toBe("http://x/tasks?status=offered");
  });

  it("goes out in the alert webhook's formats: ntfy with a Click header, or JSON with the link", () => {
    const note = waitingNotification({ proposals: [item("p1", "SOUL of ann: be kinder")], offered: [] }, "https://deck.example.com");
    const ntfy = noticeRequest("https://ntfy.sh/my-swarm", note).init;
    const headers = ntfy.headers as Record<string, string>;
    expect(headers.Click).toBe("https://deck.example.com/proposals");
    expect(headers.Title).toBe("Swarmdeck: 1 identity proposal waiting");
    expect(headers["content-type"]).toMatch(/^text\/plain/);
    expect(ntfy.body).toContain("- SOUL of ann: be kinder");
    const json = JSON.parse(String(noticeRequest("https://hooks.example.com/x", note).init.body));
    expect(json).toMatchObject({
      title: "Swarmdeck: 1 identity proposal waiting",
      click: "https://deck.example.com/proposals",
      waiting: { proposals: 1, offeredTasks: 0 },
    });
  });
});

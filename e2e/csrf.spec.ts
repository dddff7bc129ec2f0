// Cross-site request forgery in a real browser (issue 15, point 1): a page on another
// port of the same host is "same site", so Chromium sends it the operator's
// SameSite=Lax session cookie. Its auto-submitted text/plain form and its no-cors
// fetch must change nothing; the app's own pages keep working.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { apiCall, expect, serverInfo, signIn, test, uniqueName } from "./support/fixtures";

let attacker: Server;
let attackerOrigin: string;
const pages = new Map<string, string>();

test.beforeAll(async () => {
  attacker = createServer((req, res) => {
    const html = pages.get(req.url ?? "");
    res.writeHead(html ? 200 : 404, { "content-type": "text/html" });
    res.end(html ?? "not found");
  });
  await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", resolve));
  attackerOrigin = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
});

test.afterAll(() => new Promise<void>((resolve) => attacker.close(() => resolve())));

async function userExists(email: string) {
  const reply = await apiCall<{ users: Array<{ email: string }> }>("GET", "/api/v1/users");
  return reply.body.users.some((user) => user.email === email);
}

async function taskExists(title: string) {
  const reply = await apiCall<{ tasks: Array<{ title: string }> }>("GET", "/api/v1/tasks?limit=200");
  return reply.body.tasks.some((task) => task.title === title);
}

test("a page on another port cannot create an admin with an auto-submitted text/plain form", async ({ page }) => {
  const appUrl = serverInfo().baseUrl;
  expect(new URL(attackerOrigin).hostname).toBe(new URL(appUrl).hostname);
  await signIn(page);
  const email = `${uniqueName("csrf-form")}@test.local`;
  // enctype=text/plain sends "name=value": the JSON is split across the two.
  const json = JSON.stringify({ email, role: "admin", password: "attacker-chosen-password", pad: "" });
  const name = json.slice(0, -2);
  pages.set(
    "/form",
    `<form id="f" method="POST" enctype="text/plain" action="${appUrl}/api/v1/users">
       <input type="hidden" name='${name}' value='"}'></form>
     <script>document.getElementById("f").submit()</script>`,
  );
  const answer = page.waitForResponse((response) => response.url() === `${appUrl}/api/v1/users`);
  await page.goto(`${attackerOrigin}/form`);
  const response = await answer;
  expect(response.status()).toBe(403);
  expect(await response.json()).toMatchObject({ error: { code: "forbidden", details: { reason: "cross_site_request" } } });
  expect(await userExists(email)).toBe(false);
});

test("a page on another port cannot create a task with fetch(no-cors, credentials: include)", async ({ page }) => {
  const appUrl = serverInfo().baseUrl;
  await signIn(page);
  const title = uniqueName("csrf-fetch");
  pages.set("/fetch", "<p>nothing to see</p>");
  await page.goto(`${attackerOrigin}/fetch`);
  const seen = page.waitForResponse((response) => response.url() === `${appUrl}/api/v1/tasks`);
  await page.evaluate(
    ([url, body]) =>
      fetch(url, { method: "POST", mode: "no-cors", credentials: "include", headers: { "content-type": "text/plain" }, body }).then(
        () => undefined,
      ),
    [`${appUrl}/api/v1/tasks`, JSON.stringify({ title })] as const,
  );
  expect((await seen).status()).toBe(403);
  expect(await taskExists(title)).toBe(false);

  // The app's own page, same cookie, JSON body: the change goes through.
  await page.goto("/tasks");
  const status = await page.evaluate(
    (body) => fetch("/api/v1/tasks", { method: "POST", headers: { "content-type": "application/json" }, body }).then((r) => r.status),
    JSON.stringify({ title }),
  );
  expect(status).toBe(201);
  expect(await taskExists(title)).toBe(true);
});

// No 5xx on any input, and the one error shape on every /api/* error (issue 15,
// points 5 and 6): lone surrogates and NUL characters in string fields, queries and
// path ids, malformed percent-escapes in path ids, odd methods, methods a route does
// not take, and paths no route claims.
import { request as httpRequest } from "node:http";
import { describe, expect, it } from "vitest";
import { admin, client, createAgent, createWorkerToken, server } from "./support/client";

function expectErrorShape(reply: { status: number; body: any }, status: number, code?: string) {
  expect(reply.status).toBe(status);
  expect(reply.body).toMatchObject({ error: { code: expect.any(String), message: expect.any(String) } });
  if (code) expect(reply.body.error.code).toBe(code);
}

/** node:http, because fetch refuses to send TRACE and a few other methods at all. */
function rawRequest(method: string, path: string, headers: Record<string, string> = {}) {
  const url = new URL(server().baseUrl);
  return new Promise<{ status: number; body: any; type: string }>((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => {
        text += chunk;
      });
      res.on("end", () => {
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {}
        resolve({ status: res.statusCode ?? 0, body, type: String(res.headers["content-type"] ?? "") });
      });
    });
    req.on("error", reject);
    req.end();
  });
}

describe("lone UTF-16 surrogates", () => {
  it("PATCH /api/v1/agents/{id} with displayName \\ud800 is a 400 naming the field, and the agent is unchanged", async () => {
    const agent = await createAgent({ displayName: "Before" });
    const reply = await admin().request("PATCH", `/api/v1/agents/${agent.id}`, undefined, { raw: '{"displayName":"\\ud800"}' });
    expectErrorShape(reply, 400, "validation_failed");
    expect(reply.body.error.details).toEqual([expect.objectContaining({ path: "displayName" })]);
    expect((await admin().get(`/api/v1/agents/${agent.id}`)).body.agent.displayName).toBe("Before");
  });

  it("is refused in nested fields, keys, and on the worker API too", async () => {
    const agent = await createAgent();
    const worker = client(await createWorkerToken(agent.id));
    const cases: Array<[ReturnType<typeof client>, string, string, string]> = [
      [admin(), "POST", "/api/v1/users", '{"email":"x@test.local","role":"viewer","password":"\\udfffaaaaaaaaaaaa"}'],
      [admin(), "POST", "/api/v1/tokens", '{"name":"a\\ud800b"}'],
      [admin(), "PUT", `/api/v1/agents/${agent.id}/identity/soul`, '{"content":"\\ud83d","baseVersionId":null,"reason":"x"}'],
      [admin(), "POST", "/api/v1/memories", '{"items":[{"name":"n","content":"\\udc00"}]}'],
      [worker, "POST", "/api/worker/register", '{"hostname":"\\ud800","workerVersion":"1"}'],
      [worker, "POST", "/api/worker/memories", '{"\\ud800":"key"}'],
    ];
    for (const [who, method, path, raw] of cases) {
      const reply = await who.request(method, path, undefined, { raw });
      expect(`${method} ${path} ${reply.status}`).toBe(`${method} ${path} 400`);
      expectErrorShape(reply, 400, "validation_failed");
    }
    const users = (await admin().get("/api/v1/users")).body.users as Array<{ email: string }>;
    expect(users.map((user) => user.email)).not.toContain("x@test.local");
  });

  it("still takes proper surrogate pairs (emoji)", async () => {
    const agent = await createAgent();
    const reply = await admin().request("PATCH", `/api/v1/agents/${agent.id}`, undefined, {
      raw: '{"displayName":"Rocket \\ud83d\\ude80"}',
    });
    expect(reply.status).toBe(200);
    expect(reply.body.agent.displayName).toBe("Rocket 🚀");
  });
});

describe("NUL characters (PostgreSQL text cannot hold them; refused on both stores alike)", () => {
  it("in a JSON field or key: 400 naming the field, and nothing is stored", async () => {
    const agent = await createAgent({ displayName: "Before" });
    const reply = await admin().request("PATCH", `/api/v1/agents/${agent.id}`, undefined, { raw: '{"displayName":"a\\u0000b"}' });
    expectErrorShape(reply, 400, "validation_failed");
    expect(reply.body.error.details).toEqual([expect.objectContaining({ path: "displayName" })]);
    expect((await admin().get(`/api/v1/agents/${agent.id}`)).body.agent.displayName).toBe("Before");
    const worker = client(await createWorkerToken(agent.id));
    const cases: Array<[ReturnType<typeof client>, string, string, string]> = [
      [admin(), "PUT", `/api/v1/agents/${agent.id}/identity/soul`, '{"content":"x\\u0000","baseVersionId":null,"reason":"x"}'],
      [admin(), "POST", "/api/v1/memories", '{"items":[{"name":"n","content":"\\u0000"}]}'],
      [worker, "POST", "/api/worker/memories", '{"a\\u0000":"key"}'],
    ];
    for (const [who, method, path, raw] of cases) {
      const reply = await who.request(method, path, undefined, { raw });
      expect(`${method} ${path} ${reply.status}`).toBe(`${method} ${path} 400`);
      expectErrorShape(reply, 400, "validation_failed");
    }
  });

  it("in a query: 400 naming the parameter; in a path id: 404 (no record holds one)", async () => {
    const query = await admin().get("/api/v1/audit?action=agent%00created");
    expectErrorShape(query, 400, "validation_failed");
    expect(query.body.error.details).toEqual([expect.objectContaining({ path: "action" })]);
    expectErrorShape(await admin().get("/api/v1/agents/abc%00def"), 404, "not_found");
    expectErrorShape(await admin().get("/api/v1/proposals/%00"), 404, "not_found");
  });

  it("a memory id past the 32-bit ids both stores use: 404, not a database error", async () => {
    for (const id of ["2147483648", "99999999999", "999999999999999"]) {
      expectErrorShape(await admin().get(`/api/v1/memories/${id}`), 404, "not_found");
    }
  });
});

describe("malformed percent-escapes in path ids", () => {
  it("answer 400 in the error shape, before authentication, on the operator and the worker API", async () => {
    for (const [method, path] of [
      ["GET", "/api/v1/tasks/%ZZ"],
      ["POST", "/api/worker/tasks/%ZZ/complete"],
      ["GET", "/api/v1/agents/%ED%A0%80"],
      ["DELETE", "/api/v1/tokens/%"],
    ] as const) {
      const reply = await rawRequest(method, path);
      expect(`${method} ${path} ${reply.status}`).toBe(`${method} ${path} 400`);
      expect(reply.type).toContain("application/json");
      expect(reply.body.error.code).toBe("bad_request");
    }
  });
});

describe("methods", () => {
  it("TRACE and other methods no route uses: 405 in the error shape", async () => {
    for (const method of ["TRACE", "PROPFIND", "MKCOL"]) {
      const reply = await rawRequest(method, "/api/health");
      expect(`${method} ${reply.status}`).toBe(`${method} 405`);
      expect(reply.body.error.code).toBe("method_not_allowed");
    }
  });

  it("a method the route does not export: 405 with a body in the error shape", async () => {
    const reply = await admin().delete("/api/v1/tasks/x");
    expectErrorShape(reply, 405, "method_not_allowed");
    const put = await admin().put("/api/health", {});
    expectErrorShape(put, 405, "method_not_allowed");
  });
});

describe("paths no route claims", () => {
  it("answer a JSON 404 in the error shape, not Next's HTML page", async () => {
    for (const [method, path] of [
      ["GET", "/api/nope"],
      ["POST", "/api/v1/agents/x/nope"],
      ["DELETE", "/api/worker/nothing/here"],
    ] as const) {
      const reply = await admin().request(method, path);
      expect(`${method} ${path} ${reply.status}`).toBe(`${method} ${path} 404`);
      expectErrorShape(reply, 404, "not_found");
    }
  });
});

describe("next-auth's endpoints (/api/auth/*)", () => {
  it("an action it does not have, a provider there is none of, or a method an action does not take: the error shape, never a plain-text 400 or a 500", async () => {
    for (const [method, path, status, code] of [
      ["GET", "/api/auth/nope", 404, "not_found"],
      ["POST", "/api/auth/nope", 404, "not_found"],
      ["GET", "/api/auth/callback/github", 404, "not_found"],
      ["POST", "/api/auth/callback/github", 404, "not_found"],
      // The credentials callback takes the sign-in form (POST); next-auth answered a GET with a 500.
      ["GET", "/api/auth/callback/credentials", 405, "method_not_allowed"],
    ] as const) {
      const reply = await client().request(method, path);
      expect(`${method} ${path} ${reply.status}`).toBe(`${method} ${path} ${status}`);
      expectErrorShape(reply, status, code);
    }
    // Its error page (an HTML 500 for ?error=Configuration) is the sign-in page, as for a failed sign-in.
    const page = await fetch(`${server().baseUrl}/api/auth/error?error=Configuration`, { redirect: "manual" });
    expect(page.status).toBe(302);
    expect(new URL(page.headers.get("location") ?? "", server().baseUrl).pathname).toBe("/login");
    // What the sign-in page and the session use still answers as before.
    const csrf = await client().get("/api/auth/csrf");
    expect(csrf.status).toBe(200);
    expect(csrf.body.csrfToken).toEqual(expect.any(String));
    expect((await client().get("/api/auth/providers")).body).toMatchObject({ credentials: { id: "credentials" } });
    expect((await client().get("/api/auth/session")).status).toBe(200);
  });
});

describe("request targets that are not a path", () => {
  it("the asterisk-form: OPTIONS * is answered for the server (204 with Allow), anything else with it a 400, never a 500", async () => {
    const options = await rawRequest("OPTIONS", "*");
    expect(options.status).toBe(204);
    for (const [method, target] of [
      ["GET", "*"],
      ["POST", "*"],
      ["GET", "*x"],
    ] as const) {
      const reply = await rawRequest(method, target);
      expect(`${method} ${target} ${reply.status}`).toBe(`${method} ${target} 400`);
      expect(reply.body).toContain("not a path");
    }
    expect((await rawRequest("GET", "/api/health")).status).toBe(200);
  });
});

describe("requests Node itself refuses before any route", () => {
  it("a request line over 16 KiB: 431 in the error shape, not an empty answer", async () => {
    const reply = await rawRequest("GET", `/api/v1/agents?q=${"x".repeat(20_000)}`);
    expect(reply.status).toBe(431);
    expect(reply.type).toContain("application/json");
    expect(reply.body.error.code).toBe("headers_too_large");
  });
});

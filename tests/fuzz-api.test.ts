// Property-based fuzzing of the whole HTTP API (issue 15): requests derived from the
// route table (every app/api/**/route.ts, its methods and the access its wrapper
// asks for) and from the zod contracts its handlers parse (lib/contracts), with
// valid, boundary and hostile values, every method, and no credential, the wrong
// kind and the right one. For every answer: never a 5xx; every error in the one
// shape; and a request that failed changed nothing in the database.
// Its own server (background jobs off, so only requests write) on a fresh database.
import { readdirSync, readFileSync } from "node:fs";
import { get as httpGet } from "node:http";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { IDENTITY_KINDS } from "@/lib/contracts/identity";
import { sessionCookie } from "./support/client";
import { arbitraryFromJsonSchema, hostileBody, hostileValue, type JsonSchema } from "./support/fuzz-arbitraries";
import { openTestDb, type TestDb } from "./support/test-db";
import { startTestServer, type TestServer } from "./support/test-server";

const ROOT = path.resolve(import.meta.dirname, "..");
const RUNS_PER_ROUTE = Number(process.env.FUZZ_RUNS_PER_ROUTE ?? 16);
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

type Access = "public" | "worker" | "viewer" | "operator" | "admin" | "fallback";
type Operation = { method: string; access: Access; body?: JsonSchema; query?: JsonSchema };
type Route = { template: string; operations: Operation[] };

// ------------------------------------------------------------- the route table

function routeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return routeFiles(full);
    return entry.name === "route.ts" ? [full] : [];
  });
}

/** Every exported zod schema of lib/contracts, by its exported name. */
async function contractSchemas(): Promise<Map<string, z.ZodType>> {
  const schemas = new Map<string, z.ZodType>();
  const dir = path.join(ROOT, "lib", "contracts");
  for (const file of readdirSync(dir).filter((name) => name.endsWith(".ts") && !name.endsWith(".test.ts"))) {
    const module = (await import(path.join(dir, file))) as Record<string, unknown>;
    for (const [name, value] of Object.entries(module)) if (value instanceof z.ZodType) schemas.set(name, value);
  }
  return schemas;
}

function toJsonSchema(schema: z.ZodType | undefined): JsonSchema | undefined {
  if (!schema) return undefined;
  try {
    return z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  } catch {
    return undefined; // not representable: the request gets generic and hostile bodies only
  }
}

function readRoutes(schemas: Map<string, z.ZodType>): Route[] {
  const apiDir = path.join(ROOT, "app", "api");
  return routeFiles(apiDir)
    .map((file) => {
      const template = `/api/${path.relative(apiDir, path.dirname(file)).split(path.sep).join("/")}`;
      const source = readFileSync(file, "utf8");
      const operations: Operation[] = [];
      // `export const POST = operatorRoute("admin", async ({ body }) => { ... body(createUserBodySchema) ...`
      const parts = source.split(/export const (GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS)\b/);
      for (let i = 1; i + 1 < parts.length; i += 2) {
        const method = parts[i] as string;
        const code = parts[i + 1] as string;
        const role = /operatorRoute\("(viewer|operator|admin)"/.exec(code)?.[1] as Access | undefined;
        const access: Access = role ?? (/workerRoute\(/.test(code) ? "worker" : "public");
        const bodyName = /body\((\w+)/.exec(code)?.[1];
        const queryName = /query\((\w+)/.exec(code)?.[1];
        operations.push({
          method,
          access,
          body: toJsonSchema(bodyName ? schemas.get(bodyName) : undefined),
          query: toJsonSchema(queryName ? schemas.get(queryName) : undefined),
        });
      }
      // `export { notFound as GET, ... }`: the catch-all for paths no route claims.
      for (const match of source.matchAll(/\w+ as (GET|POST|PUT|PATCH|DELETE|OPTIONS)\b/g)) {
        operations.push({ method: match[1] as string, access: "fallback" });
      }
      return { template, operations };
    })
    .filter((route) => !route.template.startsWith("/api/auth/")); // next-auth's own endpoints: tests/login-throttle.test.ts
}

// ------------------------------------------------------------ the running app

let app: TestServer;
let routes: Route[];
let database: TestDb;
let generated = 0;
const statuses = new Map<string, number>();
const credentials = new Map<string, Record<string, string>>();
const ids: Record<string, string[]> = {};

// No answer within this long is a failure of its own (the longest legitimate wait, a poll's waitMs, is 30 s).
const ANSWER_WITHIN_MS = 45_000;

async function call(method: string, url: string, headers: Record<string, string>, body?: string) {
  return fetch(`${app.baseUrl}${url}`, { method, headers, body, redirect: "manual", signal: AbortSignal.timeout(ANSWER_WITHIN_MS) });
}

/** The status of a bodiless GET, read with node:http, which takes the answer even when the server closes right after it. */
function statusWithoutBody(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpGet(`${app.baseUrl}${url}`, { headers }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on("error", reject);
    request.setTimeout(ANSWER_WITHIN_MS, () => request.destroy(new Error("no answer")));
  });
}

async function json(method: string, url: string, token: string, body?: unknown) {
  const response = await call(method, url, { authorization: `Bearer ${token}`, "content-type": "application/json" }, JSON.stringify(body));
  const parsed = (await response.json()) as any;
  if (response.status >= 300) throw new Error(`${method} ${url}: ${response.status} ${JSON.stringify(parsed)}`);
  return parsed;
}

async function arrange() {
  const admin = app.adminToken;
  const person = async (role: string, label: string = role) => {
    const email = `fuzz-${label}@test.local`;
    const password = "fuzz-password-long";
    const user = await json("POST", "/api/v1/users", admin, { email, role, password });
    const token = await json("POST", "/api/v1/tokens", admin, { name: `fuzz ${role}`, userId: user.user.id });
    return { id: user.user.id as string, email, password, token: token.token as string, tokenId: token.id as string };
  };
  const operator = await person("operator");
  const viewer = await person("viewer");
  const victim = await person("operator", "victim"); // a user and token the fuzz may change or revoke
  const worker = await json("POST", "/api/v1/agents", admin, { name: "fuzz-worker" });
  const lead = await json("POST", "/api/v1/agents", admin, { name: "fuzz-lead", role: "lead" });
  const workerToken = (await json("POST", `/api/v1/agents/${worker.agent.id}/tokens`, admin, { name: "fuzz" })).token as string;
  const leadToken = (await json("POST", `/api/v1/agents/${lead.agent.id}/tokens`, admin, { name: "fuzz" })).token as string;
  const task = await json("POST", "/api/v1/tasks", admin, { title: "fuzz task", agentId: worker.agent.id });
  const memory = await json("POST", "/api/v1/memories", admin, { items: [{ name: "fuzz memory", content: "Keep the fuzz suite fast." }] });
  const versions = await json("GET", `/api/v1/agents/${worker.agent.id}/identity/soul/versions`, admin);
  const cookie = await sessionCookie(app.adminEmail, app.adminPassword, app.baseUrl);

  Object.assign(ids, {
    agents: [worker.agent.id, lead.agent.id],
    tasks: [task.task.id],
    memories: memory.ids ?? [],
    users: [victim.id],
    tokens: [victim.tokenId],
    versions: (versions.versions ?? []).map((version: { id: string }) => version.id),
    identity: [...IDENTITY_KINDS],
  });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  credentials.set("none", {});
  credentials.set("bogus token", bearer("sdo_not_a_real_token"));
  credentials.set("malformed header", { authorization: "Basic YWRtaW46YWRtaW4=" });
  credentials.set("admin token", bearer(admin));
  credentials.set("operator token", bearer(operator.token));
  credentials.set("viewer token", bearer(viewer.token));
  credentials.set("worker token", bearer(workerToken));
  credentials.set("lead worker token", bearer(leadToken));
  credentials.set("session", { cookie, origin: app.baseUrl });
  credentials.set("session from another site", { cookie, origin: "http://127.0.0.1:1", "sec-fetch-site": "same-site" });
}

// ------------------------------------------------- what changed in the database

const VOLATILE_COLUMNS = new Set(["lastUsedAt", "lastSeenAt"]);
// Rate-limit counters: in the process's memory on SQLite, in this table on PostgreSQL
// (prisma/postgresql/migrations/20261126110400_rate_limits); a refused request may count.
const VOLATILE_TABLES = new Set(["RateLimit"]);

/** Every table's rows (less columns that a read legitimately touches), as one string. */
async function readSnapshot(): Promise<string> {
  const keep = (rows: Array<Record<string, unknown>>) =>
    rows.map((row) => Object.entries(row).filter(([column]) => !VOLATILE_COLUMNS.has(column)));
  if (database.store === "postgresql") {
    // One round trip: every table's rows as JSON, each in a stable order (a row's text
    // starts with its id), since an UPDATE moves a row within the heap.
    const tables = (
      await database.all<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")
    ).filter(({ name }) => !VOLATILE_TABLES.has(name));
    const rows = await database.all<{ name: string; rows: Array<Record<string, unknown>> }>(
      tables
        .map(
          ({ name }) =>
            `SELECT '${name}' AS name, (SELECT coalesce(json_agg(row_to_json(t) ORDER BY t::text), '[]') FROM "${name}" t) AS rows`,
        )
        .join(" UNION ALL "),
    );
    return rows.map(({ name, rows }) => `${name}:${JSON.stringify(keep(rows))}`).join("\n");
  }
  const tables = await database.all<{ name: string }>(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '%fts%' ORDER BY name",
  );
  const parts: string[] = [];
  for (const { name } of tables) {
    const rows = await database.all<Record<string, unknown>>(`SELECT * FROM "${name}"`);
    parts.push(`${name}:${JSON.stringify(keep(rows), (_, value) => (Buffer.isBuffer(value) ? value.toString("base64") : value))}`);
  }
  return parts.join("\n");
}

// SQLite's data_version changes when another connection (the server) commits, so
// the full read above runs only when something was written since the last one.
// PostgreSQL has no such counter for one database: there every snapshot reads.
let cached: { version: number; text: string } | undefined;

async function snapshot(): Promise<string> {
  if (database.store === "postgresql") return readSnapshot();
  const version = Number((await database.get<{ data_version: number }>("PRAGMA data_version"))?.data_version);
  if (cached?.version !== version) cached = { version, text: await readSnapshot() };
  return cached.text;
}

// ------------------------------------------------------------- the requests

const paramValue = (segmentBefore: string) =>
  fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...(ids[segmentBefore]?.length ? ids[segmentBefore] : ["missing-id"])) },
    { weight: 1, arbitrary: fc.constantFrom(...Object.values(ids).flat()) },
    { weight: 2, arbitrary: fc.string({ maxLength: 30 }).map(encodeURIComponent) },
    {
      weight: 2,
      // Raw, already in the path: malformed escapes, invalid UTF-8, traversal, huge.
      arbitrary: fc.constantFrom(
        "%ZZ",
        "%",
        "%ED%A0%80",
        "%C0%AF",
        "..%2F..%2Fetc%2Fpasswd",
        "..",
        "%00",
        "x".repeat(3000),
        "%F0%9F%9A%80",
      ),
    },
  );

function pathArbitrary(template: string): fc.Arbitrary<string> {
  const segments = template.split("/").filter(Boolean);
  const parts = segments.map((segment, i) => {
    if (segment === "[...path]")
      return fc.array(fc.stringMatching(/^[a-z0-9%._-]{1,12}$/), { minLength: 1, maxLength: 4 }).map((s) => s.join("/"));
    if (segment.startsWith("[")) return paramValue(segments[i - 1] ?? "");
    return fc.constant(segment);
  });
  return fc.tuple(...parts).map((values) => `/${values.join("/")}`);
}

function queryArbitrary(schema: JsonSchema | undefined): fc.Arbitrary<string> {
  const valid = schema ? arbitraryFromJsonSchema(schema) : fc.constant({});
  return fc
    .oneof(
      { weight: 3, arbitrary: valid },
      { weight: 1, arbitrary: fc.dictionary(fc.constantFrom("limit", "status", "agentId", "q", "cursor", "days", "scope"), hostileValue) },
      { weight: 1, arbitrary: fc.constant({}) },
    )
    .map((values) => {
      const params = new URLSearchParams();
      if (values && typeof values === "object") {
        for (const [key, value] of Object.entries(values))
          if (value !== undefined) params.set(key, typeof value === "string" ? value : JSON.stringify(value));
      }
      const text = params.toString();
      return text ? `?${text}` : "";
    });
}

type Body = { text?: string; contentType?: string };

function bodyArbitrary(schema: JsonSchema | undefined): fc.Arbitrary<Body> {
  const valid = schema ? arbitraryFromJsonSchema(schema) : fc.jsonValue({ maxDepth: 2 });
  const contentType = fc.oneof(
    { weight: 6, arbitrary: fc.constant("application/json") },
    { weight: 1, arbitrary: fc.constantFrom("text/plain", "application/x-www-form-urlencoded", "application/json; charset=utf-8", "") },
  );
  return fc.oneof(
    { weight: 4, arbitrary: fc.record({ text: valid.map((value) => JSON.stringify(value)), contentType }) },
    { weight: 4, arbitrary: fc.record({ text: hostileBody(valid), contentType }) },
    { weight: 1, arbitrary: fc.constant({}) },
  );
}

function requestArbitrary(route: Route) {
  const declared = route.operations.map((operation) => operation.method);
  const method = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...(declared.length ? declared : ["GET"])) },
    { weight: 1, arbitrary: fc.constantFrom(...METHODS) },
  );
  return method.chain((chosen) => {
    const operation = route.operations.find((candidate) => candidate.method === chosen);
    return fc.record({
      method: fc.constant(chosen),
      path: pathArbitrary(route.template),
      query: queryArbitrary(operation?.query),
      body: chosen === "GET" || chosen === "HEAD" ? fc.constant<Body>({}) : bodyArbitrary(operation?.body),
      credential: fc.constantFrom(...credentials.keys()),
    });
  });
}

// ------------------------------------------------------------------ the suite

beforeAll(async () => {
  app = await startTestServer({ env: { SWARMDECK_DISABLE_JOBS: "1" } });
  routes = readRoutes(await contractSchemas());
  await arrange();
  database = openTestDb(app.databaseUrl);
}, 240_000);

afterAll(async () => {
  await database?.close();
  await app?.stop();
  const tally = [...statuses].sort(([a], [b]) => a.localeCompare(b)).map(([status, count]) => `${status}: ${count}`);
  console.log(`[fuzz] ${generated} generated requests over ${routes?.length ?? 0} route paths (${tally.join(", ")})`);
});

describe("the API under generated requests", () => {
  it("reads the route table and finds a contract for the routes that read a body", () => {
    expect(routes.length).toBeGreaterThan(50);
    const withBody = routes.flatMap((route) => route.operations).filter((operation) => operation.body);
    expect(withBody.length).toBeGreaterThan(20);
  });

  it("answers every generated request without a 5xx, every error in the one shape, and a failed request changes nothing", async () => {
    for (const route of routes) {
      await fc.assert(
        fc.asyncProperty(requestArbitrary(route), async (request) => {
          generated += 1;
          const headers: Record<string, string> = { ...credentials.get(request.credential) };
          if (request.body.contentType) headers["content-type"] = request.body.contentType;
          const before = await snapshot();
          const url = `${request.path}${request.query}`;
          let response: Response;
          try {
            response = await call(request.method, url, headers, request.body.text);
          } catch (error) {
            // A request line past Node's 16 KiB header limit is refused with a 431 and the
            // connection closed (scripts/serve.mjs); a client still sending its body then sees
            // EPIPE or a reset instead of the answer. That is the server refusing, not failing.
            if (url.length > 16_000) {
              // The same request line with no body gets the 431 itself.
              expect(await statusWithoutBody(url, headers), `${request.method} ${url.slice(0, 200)}: ${String(error)}`).toBe(431);
              return;
            }
            throw error;
          }
          const text = await response.text();
          statuses.set(String(response.status), (statuses.get(String(response.status)) ?? 0) + 1);
          const where = `${request.method} ${url.slice(0, 300)} as ${request.credential} → ${response.status} ${text.slice(0, 300)}`;
          expect(response.status, where).toBeLessThan(500);
          // fetch resolves dot segments before sending (`/api/../x` goes out as `/x`): what is
          // no longer an /api path is a page request, answered as pages are (no JSON shape).
          const sentToApi = new URL(`${request.path}${request.query}`, app.baseUrl).pathname.startsWith("/api/");
          if (response.status >= 400) {
            if (request.method !== "HEAD" && sentToApi) {
              const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
              expect(typeof body.error?.code, where).toBe("string");
              expect(typeof body.error?.message, where).toBe("string");
            }
            expect((await snapshot()) === before, `${where}\nchanged the database`).toBe(true);
          }
        }),
        { numRuns: RUNS_PER_ROUTE, endOnFailure: true },
      );
    }
  }, 600_000);
});

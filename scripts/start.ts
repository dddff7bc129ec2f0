// Everything a fresh clone still needs before the server: secrets, a build when
// the sources changed, migrations, seeding. `npm start` runs it as
// `start.ts --prepare` from scripts/start.mjs, which then serves in its own
// process; `npm run dev` runs it and then `next dev`; on its own it starts the
// production server as a child.
import { databaseTarget, redactedDatabaseUrl } from "../lib/config/database-url";
import { parseEnv } from "../lib/env";
import { ensureBuild, ensureSemanticData, ensureVectorKernel, migrateDeploy, prepareSecrets, startServer } from "./launch";

const mode = process.argv.includes("--dev") ? "dev" : "start";
/** Prepare only, and hand the server's settings to the parent (scripts/start.mjs) over IPC. */
const prepareOnly = process.argv.includes("--prepare");

async function main() {
  const env = parseEnv();
  prepareSecrets();
  const publicHost = !env.HOSTNAME || env.HOSTNAME === "0.0.0.0" || env.HOSTNAME === "::" ? "localhost" : env.HOSTNAME;
  process.env.NEXTAUTH_URL ??= `http://${publicHost}:${env.PORT}`;

  const database = databaseTarget();
  console.log(`Database: ${database.kind === "sqlite" ? database.file : `PostgreSQL ${redactedDatabaseUrl(database.url)}`}`);
  ensureSemanticData();
  ensureVectorKernel();
  if (mode === "start") ensureBuild();
  migrateDeploy();

  const { seedDatabase } = await import("../lib/seed/seed");
  const report = await seedDatabase(env);
  if (report.admin?.password) {
    console.log("\n  ┌──────────────────────────────────────────────────────────────");
    console.log("  │ First start: an admin account was created.");
    console.log(`  │   email:    ${report.admin.email}`);
    console.log(`  │   password: ${report.admin.password}`);
    console.log(`  │ (also saved, readable only by you, in ${report.admin.passwordFile})`);
    console.log("  └──────────────────────────────────────────────────────────────\n");
  } else if (report.admin) {
    console.log(`Admin account ${report.admin.email} created from SWARMDECK_ADMIN_EMAIL / SWARMDECK_ADMIN_PASSWORD.`);
  }
  if (report.adminToken === "created") console.log("SWARMDECK_ADMIN_TOKEN registered as an admin API token.");

  if (prepareOnly) {
    const settings = {
      env: { NEXTAUTH_SECRET: process.env.NEXTAUTH_SECRET, NEXTAUTH_URL: process.env.NEXTAUTH_URL, NEXT_TELEMETRY_DISABLED: "1" },
      port: env.PORT,
      hostname: env.HOSTNAME,
    };
    console.log(`Swarmdeck on ${process.env.NEXTAUTH_URL}`);
    // Exits at once: the database connection of the seed step would otherwise keep this process alive.
    process.send?.(settings, () => process.exit(0));
    if (!process.send) process.exit(1);
    return;
  }
  const child = startServer(mode, { port: env.PORT, hostname: env.HOSTNAME });
  console.log(`Swarmdeck on ${process.env.NEXTAUTH_URL}`);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => child.kill(signal));
  }
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});

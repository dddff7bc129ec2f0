// `npm start`: everything a fresh clone still needs, then the production server.
// `npm run dev` runs the same preparation and then `next dev`.
import { databaseFile } from "../lib/config/database-url";
import { parseEnv } from "../lib/env";
import { ensureBuild, migrateDeploy, prepareSecrets, startServer } from "./launch";

const mode = process.argv.includes("--dev") ? "dev" : "start";

async function main() {
  const env = parseEnv();
  prepareSecrets();
  const publicHost = !env.HOSTNAME || env.HOSTNAME === "0.0.0.0" || env.HOSTNAME === "::" ? "localhost" : env.HOSTNAME;
  process.env.NEXTAUTH_URL ??= `http://${publicHost}:${env.PORT}`;

  console.log(`Database: ${databaseFile()}`);
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

// `npm run db:reset`: deletes the SQLite database (and its -wal/-shm/-journal
// files), applies every migration to a fresh one and seeds it.
// (Prisma's `migrate reset` is broken with the JS engine.)
import { rmSync } from "node:fs";
import { databaseFile } from "../lib/config/database-url";
import { migrateDeploy } from "./launch";

const file = databaseFile();
if (!process.argv.includes("--yes")) {
  console.error(`This deletes ${file} and everything in it. Run again with --yes to go ahead: npm run db:reset -- --yes`);
  process.exit(2);
}
for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(`${file}${suffix}`, { force: true });
console.log(`Deleted ${file}`);
migrateDeploy();
const { parseEnv } = await import("../lib/env");
const { seedDatabase } = await import("../lib/seed/seed");
console.log(JSON.stringify(await seedDatabase(parseEnv()), null, 2));

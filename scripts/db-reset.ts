// `npm run db:reset`: deletes the SQLite database (and its -wal/-shm/-journal),
// applies every migration to a fresh file and seeds it. Stands in for
// `prisma migrate reset`, which the offline JS engine cannot run (SETUP-NOTES.md).
import { rmSync } from "node:fs";
import { databaseFile } from "../lib/config/database-url";
import { parseEnv } from "../lib/env";
import { migrateDeploy } from "./launch";

const file = databaseFile();
for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(`${file}${suffix}`, { force: true });
console.log(`Deleted ${file}`);
migrateDeploy();
const { seedDatabase } = await import("../lib/seed/seed");
console.log(JSON.stringify(await seedDatabase(parseEnv()), null, 2));

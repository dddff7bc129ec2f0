// `npm run db:seed`: the same idempotent seeding `npm start` does.
import { closeDatabase } from "../lib/db";
import { parseEnv } from "../lib/env";
import { seedDatabase } from "../lib/seed/seed";

const report = await seedDatabase(parseEnv());
console.log(JSON.stringify(report, null, 2));
// Done: on PostgreSQL the idle connections would otherwise hold the process for 30 s.
await closeDatabase();

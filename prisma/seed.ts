// `npm run db:seed`: the same idempotent seeding `npm start` does.
import { parseEnv } from "../lib/env";
import { seedDatabase } from "../lib/seed/seed";

const report = await seedDatabase(parseEnv());
console.log(JSON.stringify(report, null, 2));

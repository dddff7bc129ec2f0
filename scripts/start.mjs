// `npm start`. The preparation (secrets, a build when the sources changed,
// migrations, seeding: scripts/start.ts, TypeScript run through tsx) happens in a
// short-lived child process that hands back the settings the server needs and
// exits; then this process becomes the production server (scripts/serve.mjs).
// So once the app is up nothing else stays resident: no tsx launcher, no esbuild
// service, no copy of Prisma and the seed code, only npm waiting for this process.
import { spawn } from "node:child_process";
import path from "node:path";
import { serve } from "./serve.mjs";

const ROOT = path.resolve(import.meta.dirname, "..");

const prepared = await new Promise((resolve, reject) => {
  const child = spawn(
    process.execPath,
    ["--conditions=react-server", "--import", "tsx", path.join(ROOT, "scripts", "start.ts"), "--prepare"],
    {
      cwd: ROOT,
      stdio: ["inherit", "inherit", "inherit", "ipc"],
    },
  );
  let settings = null;
  child.on("message", (message) => {
    settings = message;
  });
  const forward = (signal) => child.kill(signal);
  process.on("SIGINT", forward);
  process.on("SIGTERM", forward);
  child.on("exit", (code, signal) => {
    process.off("SIGINT", forward);
    process.off("SIGTERM", forward);
    if (code === 0 && settings) resolve(settings);
    else reject(new Error(signal ? `preparation stopped by ${signal}` : `preparation failed (exit ${code})`));
  });
}).catch((error) => {
  console.error(error.message);
  process.exit(1);
});

Object.assign(process.env, prepared.env);
await serve({ port: prepared.port, hostname: prepared.hostname });

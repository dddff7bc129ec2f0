// Preloaded into the server by `npm run bench:dispatch -- --profile DIR`
// (NODE_OPTIONS=--require ...; --cpu-prof is not allowed there). SIGUSR2 starts
// a V8 CPU profile, the next SIGUSR2 writes it to DIR: the bench profiles the
// drain rounds only, not start-up or the arranging of agents and tasks.
const inspector = require("node:inspector");
const fs = require("node:fs");
const path = require("node:path");

const dir = process.env.SWARMDECK_PROFILE_DIR;
if (dir) {
  let session = null;
  process.on("SIGUSR2", () => {
    if (!session) {
      session = new inspector.Session();
      session.connect();
      session.post("Profiler.enable");
      session.post("Profiler.setSamplingInterval", { interval: 250 });
      session.post("Profiler.start");
      return;
    }
    const current = session;
    session = null;
    current.post("Profiler.stop", (error, result) => {
      current.disconnect();
      if (error) return;
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, `server-${process.pid}-${Date.now()}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}

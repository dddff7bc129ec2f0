# The Swarmdeck app image: the production server `npm start` runs, on a data volume.
# Build from the repository root:   docker build -t swarmdeck .
# Run:   docker run -p 3000:3000 -v swarmdeck-data:/app/data swarmdeck
FROM node:20-bookworm-slim AS build
# better-sqlite3 compiles its native module from source (no prebuilt download offline).
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
COPY prisma ./prisma
COPY prisma.config.ts ./
COPY lib/config/database-url.ts ./lib/config/
COPY scripts/copy-monaco.mjs scripts/build-semantic-data.mjs scripts/build-vector-kernel.mjs ./scripts/
COPY lib/memory/vector-kernel.wat ./lib/memory/
# postinstall also converts the word vectors and WordNet synonyms of memory search and
# compiles the vector index's WebAssembly scans (lib/generated/).
# `npm install`, not `npm ci`: the lock file carries only Linux's optional binaries and
# `npm ci` rejects it as out of sync (see .ci/run); `npm install` keeps the lock's versions.
RUN npm install --no-audit --no-fund && npm cache clean --force
COPY . .
# Builds the app and records the source fingerprint, so `npm start` does not rebuild at start.
RUN CHECKPOINT_DISABLE=1 NEXT_TELEMETRY_DISABLED=1 node --conditions=react-server --import tsx \
      -e 'import("./scripts/launch.ts").then((launch) => launch.ensureBuild())'

FROM node:20-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends curl ca-certificates tini \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build --chown=node:node /app /app
RUN mkdir -p /app/data && chown node:node /app/data
USER node
ENV NODE_ENV=production \
    HOSTNAME=0.0.0.0 \
    PORT=3000 \
    SWARMDECK_DATA_DIR=/app/data \
    CHECKPOINT_DISABLE=1 \
    NEXT_TELEMETRY_DISABLED=1
VOLUME ["/app/data"]
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=30 CMD curl -fsS http://localhost:3000/api/health || exit 1
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["npm", "start"]

-- PostgreSQL only: the counters of the sign-in throttle (lib/auth/login-throttle.ts)
-- and the worker quotas (lib/api/worker-quotas.ts), shared by every instance. The
-- layout is the one rate-limiter-flexible's RateLimiterPostgres reads and writes
-- (key, points, expire in ms since the epoch), each limiter under its own key prefix.
CREATE TABLE "RateLimit" (
    "key" VARCHAR(255) NOT NULL,
    "points" INTEGER NOT NULL DEFAULT 0,
    "expire" BIGINT,

    CONSTRAINT "RateLimit_pkey" PRIMARY KEY ("key")
);

CREATE INDEX "RateLimit_expire_idx" ON "RateLimit" ("expire");

-- PostgreSQL only (lib/auth/login-throttle.ts): the sign-in throttle's counters and
-- locks, shared by every instance. The layout is the one rate-limiter-flexible's
-- RateLimiterPostgres reads and writes (key, points, expire in ms since the epoch).
CREATE TABLE "LoginThrottle" (
    "key" VARCHAR(255) NOT NULL,
    "points" INTEGER NOT NULL DEFAULT 0,
    "expire" BIGINT,

    CONSTRAINT "LoginThrottle_pkey" PRIMARY KEY ("key")
);

CREATE INDEX "LoginThrottle_expire_idx" ON "LoginThrottle" ("expire");

-- The audit hash is no longer unique-indexed (prisma/schema.prisma, AuditEvent): every
-- append wrote a random page of that index, and no query looks an event up by hash.
-- The chain's integrity is its links, which verifyAuditChain recomputes.
DROP INDEX "AuditEvent_hash_key";

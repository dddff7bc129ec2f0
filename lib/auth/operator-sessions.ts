// Server-side records of signed-in browser sessions (OperatorSession). The next-auth
// JWT only names its record (`sid`); every request checks the record, so a session
// ends for real at sign-out, on a password change or reset, when the account is
// disabled, or when someone ends it in Settings.
import "server-only";
import { type Actor, appendAudit } from "@/lib/audit/audit-log";
import type { OperatorSessionDto } from "@/lib/contracts/sessions";
import { db, type Tx } from "@/lib/db";
import { notFound } from "@/lib/errors";
import type { OperatorSession, User } from "@/lib/generated/prisma/client";

export const SESSION_MAX_AGE_SECONDS = 12 * 60 * 60;
const LAST_SEEN_EVERY_MS = 60_000;

export type EndReason = "signed_out" | "password_changed" | "disabled" | "ended";

export async function startSession({ userId, userAgent, address }: { userId: string; userAgent: string; address: string }) {
  const session = await db.operatorSession.create({
    data: {
      userId,
      userAgent: userAgent.slice(0, 300),
      address: address.slice(0, 100),
      expiresAt: new Date(Date.now() + SESSION_MAX_AGE_SECONDS * 1000),
    },
  });
  return session.id;
}

/** The live session with this id and its user, or null (ended, expired, unknown). */
export async function liveSession(id: string): Promise<(OperatorSession & { user: User }) | null> {
  const session = await db.operatorSession.findUnique({ where: { id }, include: { user: true } });
  if (!session || session.endedAt || session.expiresAt.getTime() <= Date.now()) return null;
  if (Date.now() - session.lastSeenAt.getTime() >= LAST_SEEN_EVERY_MS) {
    db.operatorSession
      .update({ where: { id }, data: { lastSeenAt: new Date() } })
      .catch((error) => console.error("[swarmdeck] could not record session use", error));
  }
  return session;
}

export async function endSession({ id, reason }: { id: string; reason: EndReason }): Promise<void> {
  await db.operatorSession.updateMany({ where: { id, endedAt: null }, data: { endedAt: new Date(), endReason: reason } });
}

/** Ends every live session of a user, but `keep` (the session making the change, on a password change of one's own). */
export async function endUserSessions(tx: Tx, { userId, reason, keep }: { userId: string; reason: EndReason; keep?: string | null }) {
  const ended = await tx.operatorSession.updateMany({
    where: { userId, endedAt: null, ...(keep ? { id: { not: keep } } : {}) },
    data: { endedAt: new Date(), endReason: reason },
  });
  return ended.count;
}

type Viewer = { userId: string; isAdmin: boolean; sessionId: string | null };

/** Live sessions: one's own, or every user's for an admin. */
export async function listSessions(viewer: Viewer): Promise<OperatorSessionDto[]> {
  const sessions = await db.operatorSession.findMany({
    where: { endedAt: null, expiresAt: { gt: new Date() }, ...(viewer.isAdmin ? {} : { userId: viewer.userId }) },
    include: { user: { select: { id: true, email: true } } },
    orderBy: [{ lastSeenAt: "desc" }],
  });
  return sessions.map((session) => ({
    id: session.id,
    user: session.user,
    userAgent: session.userAgent,
    address: session.address,
    createdAt: session.createdAt.toISOString(),
    lastSeenAt: session.lastSeenAt.toISOString(),
    expiresAt: session.expiresAt.toISOString(),
    current: session.id === viewer.sessionId,
  }));
}

/** Ends one session: one's own, or anyone's for an admin. Audited. */
export async function endSessionAs({ id, viewer, actor }: { id: string; viewer: Viewer; actor: Actor }): Promise<void> {
  await db.$transaction(async (tx) => {
    const session = await tx.operatorSession.findUnique({ where: { id }, include: { user: { select: { email: true } } } });
    // Another user's session is "not found" to a non-admin: its id tells them nothing.
    if (!session || session.endedAt || (session.userId !== viewer.userId && !viewer.isAdmin)) throw notFound("Session");
    await tx.operatorSession.update({ where: { id }, data: { endedAt: new Date(), endReason: "ended" } });
    await appendAudit(tx, {
      actor,
      action: "session.ended",
      targetType: "user",
      targetId: session.userId,
      data: { email: session.user.email, sessionId: id },
    });
  });
}

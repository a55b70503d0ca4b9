// Builds audit records; callers write them in the same transaction as the change they explain.
import type { Prisma } from "@/lib/generated/prisma/client";
import type { Actor } from "./actor";
import { newId } from "./ids";

export type AuditSubject = "operation" | "contract" | "dependency" | "user" | "api_key";

export interface AuditInput {
  subjectType: AuditSubject;
  subjectId: string;
  actor: Actor;
  action: string;
  fromPhase?: string | null;
  toPhase?: string | null;
  reason?: string | null;
  data?: Record<string, unknown>;
  at: Date;
}

export function auditRecord(input: AuditInput): Prisma.AuditEventCreateManyInput {
  return {
    id: newId(),
    subjectType: input.subjectType,
    subjectId: input.subjectId,
    actorType: input.actor.type,
    actorId: input.actor.id,
    onBehalfOf: input.actor.type === "api_key" ? (input.actor.onBehalfOf ?? null) : null,
    action: input.action,
    fromPhase: input.fromPhase ?? null,
    toPhase: input.toPhase ?? null,
    reason: input.reason ?? null,
    data: input.data ? JSON.stringify(input.data) : null,
    createdAt: input.at,
  };
}

// Web console accounts, sessions and audit entries (docs/console.md). Repositories map their rows
// to these shapes; the rules live in app/console/.

export type OperatorRecord = {
  id: string;
  username: string;
  passwordHash: string;
  totpSecretSealed: string | null;
  totpLastStep: bigint | null;
  status: 'active' | 'disabled';
  createdAt: number;
  updatedAt: number;
};

export type ConsoleRole = 'operator' | 'merchant';

export type SessionRecord = {
  idHash: string;
  role: ConsoleRole;
  subjectId: string;
  createdAt: number;
  lastSeenAt: number;
};

export type AuditEntry = {
  id: string;
  at: number;
  actorRole: AuditActorRole;
  actorId: string | null;
  action: string;
  target: string | null;
  details: Record<string, unknown>;
  remoteAddr: string | null;
  requestId: string | null;
};

/** Who did what the audit log records: a console user, an operator at the CLI, or nobody signed in. */

export type AuditActorRole = ConsoleRole | 'cli' | 'anonymous';

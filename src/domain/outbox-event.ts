// Notifications waiting to be delivered and their delivery attempts (docs/notifications.md).
// Repositories map their rows to these shapes; the delivery worker decides what an attempt means.

export type NewOutboxEvent = {
  id: string;
  transactionId: string;
  merchantId: string;
  targetUrl: string;
  payload: string;
  createdAt: number;
  /** Set on a refund notification (several per transaction); absent on the payment's result. */
  refundId?: string | null;
};

export type OutboxStatus = 'pending' | 'delivered' | 'failed';

export type OutboxEvent = {
  id: string;
  transactionId: string;
  merchantId: string;
  targetUrl: string;
  /** scheme://host[:port] of targetUrl: the unit of per-endpoint fairness. */
  origin: string;
  payload: string;
  status: OutboxStatus;
  /** Attempts made in the current series (a resend starts a new series at 0). */
  attempts: number;
  nextAttemptAt: number;
  leaseOwner: string | null;
  leaseExpiresAt: number | null;
  series: number;
  createdAt: number;
  deliveredAt: number | null;
  lastError: string | null;
  /** Set on a refund notification; null on the payment's result notification. */
  refundId: string | null;
};

export type DeliveryAttempt = {
  eventId: string;
  /** Numbered across all series of the event, from 1. */
  attemptNo: number;
  series: number;
  startedAt: number;
  latencyMs: number;
  httpStatus: number | null;
  error: string | null;
  responseExcerpt: string | null;
  instanceId: string;
};

export type NewAttempt = Omit<DeliveryAttempt, 'attemptNo'>;

/** What the worker decided after one attempt. */
export type AttemptTransition =
  | { status: 'delivered'; deliveredAt: number }
  | { status: 'pending'; nextAttemptAt: number; lastError: string }
  | { status: 'failed'; lastError: string };

export type AttemptRecord = { attempt: NewAttempt; owner: string; transition: AttemptTransition };

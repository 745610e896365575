// Wakes delivery workers on other instances (PostgreSQL LISTEN/NOTIFY). A notification only
// says "look now"; the outbox is the truth, and the poll timer still finds anything a lost
// notification or a dropped connection missed.
import type pg from 'pg';
import type { WakeupLog } from '../../app/ports/delivery.ts';

export const OUTBOX_CHANNEL = 'thaiqr_outbox';
const RECONNECT_MS = 1000;

/** Tells every listening instance to look at the outbox; `from` lets the sender ignore its own echo. */
export async function notifyOutbox(pool: pg.Pool, from: string): Promise<void> {
  await pool.query('select pg_notify($1, $2)', [OUTBOX_CHANNEL, from]);
}

/**
 * Says "look at the outbox" to every listening instance at most once per event-loop turn, after
 * the turn's commits: the delivery worker after each payment it finalises, and an API process
 * that runs no delivery worker (DELIVERY_WORKER=false), so the delivery processes beside it hear
 * of each new notification at once instead of at their next poll.
 */
export class OutboxNotifier {
  readonly #pool: pg.Pool;
  readonly #from: string;
  readonly #logger: WakeupLog;
  #queued = false;
  #stopped = false;

  constructor(pool: pg.Pool, from: string, logger: WakeupLog) {
    this.#pool = pool;
    this.#from = from;
    this.#logger = logger;
  }

  notify(): void {
    if (this.#queued || this.#stopped) return;
    this.#queued = true;
    setImmediate(() => {
      this.#queued = false;
      notifyOutbox(this.#pool, this.#from).catch((error) =>
        this.#logger.debug({ err: error }, 'outbox NOTIFY failed; others will poll'),
      );
    });
  }

  stop(): void {
    this.#stopped = true;
  }
}

export class OutboxListener {
  readonly #pool: pg.Pool;
  readonly #self: string;
  readonly #onWake: () => void;
  readonly #logger: WakeupLog;
  #client: pg.PoolClient | undefined;
  #stopped = false;
  #retry: NodeJS.Timeout | undefined;

  constructor(pool: pg.Pool, self: string, onWake: () => void, logger: WakeupLog) {
    this.#pool = pool;
    this.#self = self;
    this.#onWake = onWake;
    this.#logger = logger;
  }

  start(): void {
    void this.#connect();
  }

  async #connect(): Promise<void> {
    if (this.#stopped) return;
    let client: pg.PoolClient | undefined;
    try {
      client = await this.#pool.connect();
      client.on('notification', (message) => {
        if (message.channel === OUTBOX_CHANNEL && message.payload !== this.#self) this.#onWake();
      });
      client.on('error', (error) => this.#lost(client!, error));
      await client.query(`listen ${OUTBOX_CHANNEL}`);
      if (this.#stopped) return this.#drop(client);
      this.#client = client;
      // Anything committed while we were not listening: look once.
      this.#onWake();
    } catch (error) {
      if (client) this.#drop(client, error);
      this.#schedule(error);
    }
  }

  #lost(client: pg.PoolClient, error: unknown): void {
    if (this.#client === client) this.#client = undefined;
    this.#drop(client, error);
    this.#schedule(error);
  }

  #drop(client: pg.PoolClient, error?: unknown): void {
    try {
      client.release(error instanceof Error ? error : undefined);
    } catch {
      // already released
    }
  }

  #schedule(error: unknown): void {
    if (this.#stopped || this.#retry) return;
    this.#logger.warn({ err: error }, 'outbox LISTEN connection lost; polling until it is back');
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      void this.#connect();
    }, RECONNECT_MS);
    this.#retry.unref();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#retry) clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = undefined;
    if (!client) return;
    try {
      await client.query(`unlisten ${OUTBOX_CHANNEL}`);
      client.release();
    } catch (error) {
      this.#drop(client, error);
    }
  }
}

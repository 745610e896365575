// Claims events finalised in this process from their origins, beside the main claim loop
// (claim-loop.ts), so a new notification does not queue behind a claim already waiting for the
// database (on SQLite, for its turn on the writer). A payment's completion says where its
// notification goes, so the claim is one statement; for other events (refunds, resends) one
// indexed read by id (on SQLite's read connection) finds their origins first, instead of a walk
// over due origins. Two claims may then run at once; the store never leases an event twice, and
// an origin may briefly hold up to twice its depth (its per-host cap on sends is enforced when
// each send starts, whatever is queued).
import type { Logger } from 'pino';
import type { DeliveryClaims } from './deliver-deps.ts';

export type FinalisedClaimsParts = {
  originsOf: DeliveryClaims['originsOf'];
  /** Claims from these origins only and starts what it can (the claim loop's refill). */
  claimFrom: (origins: string[]) => Promise<void>;
  /** The last full claim stopped before it had looked at every due origin. */
  truncated: () => boolean;
  /** A full claim. */
  wake: () => Promise<void>;
  logger: Logger;
};

export class FinalisedClaims {
  readonly #parts: FinalisedClaimsParts;
  #started = false;
  #stopping = false;
  #ready: Promise<void> = Promise.resolve();
  /** Events finalised in this process since the last claim: their origins are claimed from directly. */
  readonly #finalised = new Set<string>();
  /** The origins of such events when the finalisation said where they go (then their ids are not read back). */
  readonly #finalisedOrigins = new Set<string>();
  /** The claim for events finalised here, which runs beside the main claim loop. */
  #claiming: Promise<void> | undefined;

  constructor(parts: FinalisedClaimsParts) {
    this.#parts = parts;
  }

  start(ready: Promise<void>): void {
    this.#started = true;
    this.#ready = ready;
  }

  stop(): void {
    this.#stopping = true;
  }

  get busy(): boolean {
    return this.#claiming !== undefined;
  }

  async settled(): Promise<void> {
    await this.#claiming;
  }

  /** `origin`: where the event goes, when the finalisation said so. */
  add(eventId: string, origin: string | undefined): void {
    if (origin === undefined) this.#finalised.add(eventId);
    else this.#finalisedOrigins.add(origin);
    this.#claim();
  }

  #claim(): void {
    if (this.#claiming || !this.#started || this.#stopping) return;
    const { originsOf, claimFrom, truncated, wake, logger } = this.#parts;
    this.#claiming = (async () => {
      await this.#ready;
      while (this.#waiting() && !this.#stopping) {
        const ids = [...this.#finalised];
        const known = [...this.#finalisedOrigins];
        this.#finalised.clear();
        this.#finalisedOrigins.clear();
        // Other origins may be waiting for a turn (the last full claim stopped short), or an
        // event is not visible here yet: a full claim covers them.
        if (truncated()) {
          void wake();
          continue;
        }
        const { origins, missing } = ids.length > 0 ? await originsOf(ids) : { origins: [], missing: false };
        if (missing) void wake();
        const targets = [...new Set([...known, ...origins])];
        if (targets.length > 0) await claimFrom(targets);
      }
    })()
      .catch((error) => {
        logger.debug({ err: error }, 'claiming just-finalised deliveries failed; claiming from every origin');
        void wake();
      })
      .finally(() => {
        this.#claiming = undefined;
        if (this.#waiting()) this.#claim();
      });
  }

  #waiting(): boolean {
    return this.#finalised.size > 0 || this.#finalisedOrigins.size > 0;
  }
}

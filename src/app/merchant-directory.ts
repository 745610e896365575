// The request path's view of merchants: an in-memory map refreshed from the store, so a
// credential check is a hash-map lookup plus one HMAC and a constant-time compare.
// Changes made by the CLI (or another instance) are picked up within `refreshMs`.
import { GatewayError } from '../domain/errors.ts';
import { passwordMatches, type SecretKey } from '../domain/credentials.ts';
import type { MerchantStore } from './ports/store.ts';
import type { MerchantRecord } from '../domain/merchant.ts';
import { WindowCounter } from './rate-limiter.ts';

export type MerchantDirectoryOptions = {
  key: SecretKey;
  refreshMs: number;
  failedLoginLimit: number;
  failedLoginWindowMs: number;
  requestRateLimit: number;
  now?: () => number;
};

export class MerchantDirectory {
  readonly #repo: MerchantStore;
  readonly #options: MerchantDirectoryOptions;
  readonly #failedLogins: WindowCounter;
  readonly #requests: WindowCounter;
  #byId = new Map<string, MerchantRecord>();
  #marker = '';
  #timer: NodeJS.Timeout | undefined;
  #refreshing: Promise<void> | undefined;

  constructor(repo: MerchantStore, options: MerchantDirectoryOptions) {
    this.#repo = repo;
    this.#options = options;
    const now = options.now ?? Date.now;
    this.#failedLogins = new WindowCounter(options.failedLoginLimit, options.failedLoginWindowMs, now);
    this.#requests = new WindowCounter(options.requestRateLimit, 1000, now);
  }

  /** Loads the table when its change marker moved. Safe to call concurrently. */
  refresh(): Promise<void> {
    this.#refreshing ??= (async () => {
      try {
        const marker = await this.#repo.changeMarker();
        if (marker === this.#marker) return;
        const all = await this.#repo.list();
        this.#byId = new Map(all.map((m) => [m.id, m]));
        this.#marker = marker;
      } finally {
        this.#refreshing = undefined;
      }
    })();
    return this.#refreshing;
  }

  start(onError: (error: unknown) => void): void {
    this.#timer = setInterval(() => this.refresh().catch(onError), this.#options.refreshMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
  }

  get(id: string): MerchantRecord | undefined {
    return this.#byId.get(id);
  }

  /**
   * Checks `merchantid` + `password`. Unknown merchant and wrong password get the same answer
   * and cost the same. Failures are counted per (client address, merchantid): too many get
   * RATE_LIMITED for the window, without locking out other merchants behind the same address.
   */
  authenticate(merchantId: string, password: string, clientAddress: string): MerchantRecord {
    const clientKey = `${clientAddress}|${merchantId}`;
    if (this.#failedLogins.exceeded(clientKey)) {
      throw new GatewayError('RATE_LIMITED', 'Too many failed logins from this client; try again later.');
    }
    const merchant = this.#byId.get(merchantId);
    if (!passwordMatches(this.#options.key, password, merchant?.passwordHash) || !merchant) {
      this.#failedLogins.hit(clientKey);
      throw new GatewayError('INVALID_CREDENTIALS', 'The merchantid or password is not correct.');
    }
    if (merchant.status !== 'active') {
      throw new GatewayError('MERCHANT_DISABLED', 'This merchant account is disabled; contact the gateway operator.');
    }
    if (this.#requests.hit(merchant.id)) {
      throw new GatewayError('RATE_LIMITED', 'Too many requests for this merchant; slow down and retry.');
    }
    return merchant;
  }
}

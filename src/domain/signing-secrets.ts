// Which of a merchant's webhook secrets sign now, opened from their sealed form (secret-box.ts).
// Notifications (docs/notifications.md "Verifying the signature") and the return URL's
// signature (docs/hosted-page.md "Back to the merchant") sign with the same secrets.
import type { SecretKey } from './credentials.ts';
import type { MerchantRecord } from './merchant.ts';
import { openSecret } from './secret-box.ts';

/**
 * The secrets to sign with now: the current one, plus the previous one while its overlap after a
 * rotation lasts, so a merchant still holding the old secret keeps verifying. A previous secret
 * this key cannot open (rotated under another key, before rotation learned to drop it) is left
 * out rather than blocking every notification: the current one still signs.
 */
export function signingSecrets(
  merchant: MerchantRecord,
  key: SecretKey,
  nowMs: number,
  opened: OpenedSecrets = new OpenedSecrets(key),
): string[] {
  const secrets = [opened.open(merchant.webhookSecretSealed)];
  if (
    merchant.previousWebhookSecretSealed &&
    merchant.previousWebhookSecretExpiresAt !== null &&
    merchant.previousWebhookSecretExpiresAt > nowMs
  ) {
    const previous = openIfPossible(opened, merchant.previousWebhookSecretSealed);
    if (previous !== undefined) secrets.push(previous);
  }
  return secrets;
}

function openIfPossible(opened: OpenedSecrets, sealed: string): string | undefined {
  try {
    return opened.open(sealed);
  } catch {
    return undefined;
  }
}

/** Opened secrets kept at most (one or two per merchant); past this the memo starts over. */
const MAX_OPENED = 4096;

/**
 * Memo of openSecret under one key: opening (a key derivation and an AES-GCM decryption) cost
 * more than the rest of signing. Keyed by the sealed text itself, so it can never serve a
 * secret that is no longer the merchant's: a rotation stores a new sealed text (fresh IV), which
 * misses the memo and is opened on first use; the merchant row is still read for every attempt,
 * so which sealed texts sign is always the store's current answer. A sealed text that does not
 * open is not remembered (it throws every time, as before).
 */
export class OpenedSecrets {
  readonly #key: SecretKey;
  readonly #byText = new Map<string, string>();

  constructor(key: SecretKey) {
    this.#key = key;
  }

  open(sealed: string): string {
    let secret = this.#byText.get(sealed);
    if (secret === undefined) {
      secret = openSecret(this.#key, sealed);
      if (this.#byText.size >= MAX_OPENED) this.#byText.clear();
      this.#byText.set(sealed, secret);
    }
    return secret;
  }
}

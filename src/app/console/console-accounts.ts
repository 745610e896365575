// Console accounts: operators (created with the CLI; scrypt password, optional TOTP) and
// merchants' console passwords (separate from their API password). The CLI and the console's
// merchants page are thin shells over these.
import {
  consolePasswordMatches,
  consolePasswordProblem,
  generateConsolePassword,
  hashConsolePassword,
} from '../../domain/console-password.ts';
import type { SecretKey } from '../../domain/credentials.ts';
import { GatewayError, invalidField } from '../../domain/errors.ts';
import { uuidv7 } from '../../domain/ids.ts';
import { openSecret, sealSecret } from '../../domain/secret-box.ts';
import { generateTotpSecret, otpauthUri, verifyTotp } from '../../domain/totp.ts';
import type { MerchantStore } from '../ports/store.ts';
import type { ConsoleAccountStore } from '../ports/console.ts';
import type { ConsoleRole, OperatorRecord } from '../../domain/console-account.ts';

const USERNAME = /^[a-z0-9][a-z0-9._-]{1,63}$/;

export type CreatedOperator = { id: string; username: string; password?: string; otpauthUri?: string };

export type LoginSubject = { role: ConsoleRole; id: string; name: string };

/** The merchant whose rows alone a subject may see and change; undefined for operators (every merchant). */
export function merchantScopeOf(subject: LoginSubject): string | undefined {
  return subject.role === 'merchant' ? subject.id : undefined;
}

export type LoginResult = { ok: true; subject: LoginSubject } | { ok: false; reason: 'credentials' | 'disabled' };

export class ConsoleAccounts {
  readonly #repo: ConsoleAccountStore;
  readonly #merchants: MerchantStore;
  readonly #key: SecretKey;
  readonly #now: () => number;
  readonly #issuer: string;

  constructor(deps: {
    repo: ConsoleAccountStore;
    merchants: MerchantStore;
    key: SecretKey;
    now: () => number;
    issuer: string;
  }) {
    this.#repo = deps.repo;
    this.#merchants = deps.merchants;
    this.#key = deps.key;
    this.#now = deps.now;
    this.#issuer = deps.issuer;
  }

  /** `password` undefined: one is generated and returned (shown once). */
  async createOperator(input: { username: string; password?: string; totp: boolean }): Promise<CreatedOperator> {
    const username = input.username.trim().toLowerCase();
    if (!USERNAME.test(username))
      throw invalidField(
        'username',
        'it must be 2 to 64 lower-case letters, digits, ., _ or -, starting with a letter or digit',
      );
    const generated = input.password === undefined ? generateConsolePassword() : undefined;
    const password = input.password ?? generated!;
    const problem = consolePasswordProblem(password);
    if (problem) throw invalidField('password', problem);
    const totpSecret = input.totp ? generateTotpSecret() : undefined;
    const now = this.#now();
    const record: OperatorRecord = {
      id: `op_${uuidv7(now).replaceAll('-', '')}`,
      username,
      passwordHash: await hashConsolePassword(password),
      totpSecretSealed: totpSecret ? sealSecret(this.#key, totpSecret.toString('base64')) : null,
      totpLastStep: null,
      status: 'active',
      createdAt: now,
      updatedAt: now,
    };
    if (!(await this.#repo.insertOperator(record)))
      throw new GatewayError('INVALID_FIELD', `An operator named '${username}' already exists.`);
    return {
      id: record.id,
      username,
      ...(generated !== undefined && { password: generated }),
      ...(totpSecret && { otpauthUri: otpauthUri(this.#issuer, username, totpSecret) }),
    };
  }

  /** Disables the operator and ends every session they have. */
  async setOperatorStatus(username: string, status: 'active' | 'disabled'): Promise<OperatorRecord> {
    const updated = await this.#repo.setOperatorStatus(username.trim().toLowerCase(), status, this.#now());
    if (!updated) throw new GatewayError('NOT_FOUND', `No operator named '${username}'.`);
    if (status === 'disabled') await this.#repo.deleteSessionsOf('operator', updated.id);
    return updated;
  }

  /** A new password (given, or generated and returned once); the operator's sessions end. */
  async resetOperatorPassword(username: string, password?: string): Promise<{ username: string; password?: string }> {
    const generated = password === undefined ? generateConsolePassword() : undefined;
    const chosen = password ?? generated!;
    const problem = consolePasswordProblem(chosen);
    if (problem) throw invalidField('password', problem);
    const updated = await this.#repo.setOperatorPassword(
      username.trim().toLowerCase(),
      await hashConsolePassword(chosen),
      this.#now(),
    );
    if (!updated) throw new GatewayError('NOT_FOUND', `No operator named '${username}'.`);
    await this.#repo.deleteSessionsOf('operator', updated.id);
    return { username: updated.username, ...(generated !== undefined && { password: generated }) };
  }

  listOperators(): Promise<OperatorRecord[]> {
    return this.#repo.listOperators();
  }

  /** A new generated console password for a merchant (shown once); their console sessions end. */
  async issueMerchantPassword(merchantId: string): Promise<{ merchantid: string; password: string }> {
    const merchant = await this.#merchants.findById(merchantId);
    if (!merchant) throw new GatewayError('NOT_FOUND', `No merchant with id '${merchantId}'.`);
    const password = generateConsolePassword();
    await this.#repo.setMerchantPassword(merchant.id, await hashConsolePassword(password), this.#now());
    await this.#repo.deleteSessionsOf('merchant', merchant.id);
    return { merchantid: merchant.id, password };
  }

  /**
   * Operator login. An unknown name, a wrong password and a wrong or missing TOTP code all
   * answer the same 'credentials' (and cost one scrypt), so the form reveals nothing.
   */
  async loginOperator(username: string, password: string, totpCode: string): Promise<LoginResult> {
    const operator = await this.#repo.findOperatorByUsername(username.trim().toLowerCase());
    const passwordOk = await consolePasswordMatches(password, operator?.passwordHash);
    if (!operator || !passwordOk) return { ok: false, reason: 'credentials' };
    if (operator.totpSecretSealed !== null) {
      const secret = Buffer.from(openSecret(this.#key, operator.totpSecretSealed), 'base64');
      const step = verifyTotp(secret, totpCode.replace(/\s/g, ''), this.#now(), operator.totpLastStep);
      if (step === undefined || !(await this.#repo.useTotpStep(operator.id, step)))
        return { ok: false, reason: 'credentials' };
    }
    if (operator.status !== 'active') return { ok: false, reason: 'disabled' };
    return { ok: true, subject: { role: 'operator', id: operator.id, name: operator.username } };
  }

  async loginMerchant(merchantId: string, password: string): Promise<LoginResult> {
    const id = merchantId.trim();
    const stored = id.length <= 64 ? await this.#repo.merchantPasswordHash(id) : undefined;
    const passwordOk = await consolePasswordMatches(password, stored);
    if (!stored || !passwordOk) return { ok: false, reason: 'credentials' };
    const merchant = await this.#merchants.findById(id);
    if (!merchant) return { ok: false, reason: 'credentials' };
    if (merchant.status !== 'active') return { ok: false, reason: 'disabled' };
    return { ok: true, subject: { role: 'merchant', id: merchant.id, name: merchant.name } };
  }

  /** Whether the session's subject may still use the console (not disabled or deleted since login). */
  async subjectActive(role: ConsoleRole, id: string): Promise<LoginSubject | undefined> {
    if (role === 'operator') {
      const operator = await this.#repo.findOperatorById(id);
      return operator?.status === 'active' ? { role, id, name: operator.username } : undefined;
    }
    const merchant = await this.#merchants.findById(id);
    return merchant?.status === 'active' ? { role, id, name: merchant.name } : undefined;
  }
}

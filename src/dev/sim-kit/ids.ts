// Seeded identifiers: the same seed gives the same access tokens, txnNos and generated
// credentials in the same order, run after run. Each kind of id has its own counter, so creating
// one more token never shifts the next txnNo. Not for secrets that matter: it is a simulator.
import { createHash } from 'node:crypto';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export class SeededIds {
  readonly #seed: string;
  readonly #counters = new Map<string, number>();

  constructor(seed: string) {
    this.#seed = seed;
  }

  /** At least `length` pseudo-random bytes for the next id of `kind`. */
  #bytes(kind: string, length: number): Buffer {
    const n = this.#counters.get(kind) ?? 0;
    this.#counters.set(kind, n + 1);
    const blocks: Buffer[] = [];
    for (let block = 0; blocks.length * 32 < length; block++) {
      blocks.push(createHash('sha256').update(`${this.#seed}\0${kind}\0${n}\0${block}`).digest());
    }
    return Buffer.concat(blocks);
  }

  hex(kind: string, length: number): string {
    return this.#bytes(kind, Math.ceil(length / 2))
      .toString('hex')
      .slice(0, length);
  }

  digits(kind: string, length: number): string {
    return [...this.#bytes(kind, length).subarray(0, length)].map((b) => String(b % 10)).join('');
  }

  alnum(kind: string, length: number): string {
    return [...this.#bytes(kind, length).subarray(0, length)].map((b) => ALNUM[b % ALNUM.length]).join('');
  }

  /** A number in [0, 1), for jitter. */
  fraction(kind: string): number {
    return this.#bytes(kind, 4).readUInt32BE(0) / 2 ** 32;
  }
}

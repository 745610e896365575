// The CLI's shared types and flag parsing, imported by every command and by run-cli.ts.
import { parseArgs } from 'node:util';
import type { Config } from '../../config.ts';

export type CliIo = { out: (text: string) => void; err: (text: string) => void };
export type CommandContext = { config: Config; io: CliIo; env: Record<string, string | undefined> };
export type Command = {
  /** One line for the command list. */
  summary: string;
  /** Arguments and flags, shown by `<command> --help` (e.g. `<merchantid> [--json]`). */
  usage?: string;
  run(args: string[], ctx: CommandContext): Promise<number>;
};

/** A mistake in the command line: printed with the command's help, exit 2. */
export class UsageError extends Error {}

type FlagSpec = Record<string, { type: 'string' | 'boolean'; required?: boolean }>;

/** Strict flag parsing: unknown flags and missing required ones are usage errors. */
export function flags<T extends FlagSpec>(
  args: string[],
  spec: T,
): { values: { [K in keyof T]?: T[K]['type'] extends 'string' ? string : boolean }; positionals: string[] } {
  let parsed;
  try {
    parsed = parseArgs({ args, options: spec, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  for (const [name, s] of Object.entries(spec)) {
    if (s.required && (parsed.values as Record<string, unknown>)[name] === undefined)
      throw new UsageError(`--${name} is required`);
  }
  return parsed as never;
}

export function requirePositional(positionals: string[], what: string): string {
  const value = positionals[0];
  if (!value) throw new UsageError(`${what} is required`);
  return value;
}

/** Tab-separated rows under a header row, for people (scripts use --json). */
export function table(io: CliIo, header: readonly string[], rows: readonly (readonly string[])[]): void {
  io.out(header.join('\t'));
  for (const row of rows) io.out(row.join('\t'));
}

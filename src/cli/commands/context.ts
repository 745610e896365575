import { parseArgs } from 'node:util';
import type { Config } from '../../config.ts';
import type { CliIo } from '../run-cli.ts';
import { UsageError } from '../run-cli.ts';

export type CommandContext = { config: Config; io: CliIo; env: Record<string, string | undefined> };
export type Command = { summary: string; run(args: string[], ctx: CommandContext): Promise<number> };

type FlagSpec = Record<string, { type: 'string' | 'boolean'; required?: boolean }>;

/** Strict flag parsing: unknown flags and missing required ones are usage errors. */
export function flags<T extends FlagSpec>(args: string[], spec: T): { values: { [K in keyof T]?: T[K]['type'] extends 'string' ? string : boolean }; positionals: string[] } {
  let parsed;
  try {
    parsed = parseArgs({ args, options: spec, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  for (const [name, s] of Object.entries(spec)) {
    if (s.required && (parsed.values as Record<string, unknown>)[name] === undefined) throw new UsageError(`--${name} is required`);
  }
  return parsed as never;
}

export function requirePositional(positionals: string[], what: string): string {
  const value = positionals[0];
  if (!value) throw new UsageError(`${what} is required`);
  return value;
}

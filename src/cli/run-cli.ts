// The operator CLI: `npm run gateway -- <group> <command> [--flags]`. Thin over the use cases.
import { ConfigError, loadConfig, readEnvironment, type Config } from '../config.ts';
import { isGatewayError } from '../domain/errors.ts';
import { isStoreUnavailable } from '../store/open-store.ts';
import { commandTable, type Command } from './commands/index.ts';

export type CliIo = { out: (text: string) => void; err: (text: string) => void };
const defaultIo: CliIo = { out: (t) => process.stdout.write(`${t}\n`), err: (t) => process.stderr.write(`${t}\n`) };

export function usage(): string {
  const lines = Object.entries(commandTable).map(([name, c]) => `  ${name.padEnd(34)} ${c.summary}`);
  return ['Usage: npm run gateway -- <command> [options]', '', 'Commands:', ...lines].join('\n');
}

/** Returns the process exit code: 0 ok, 1 refused or failed, 2 usage or configuration. */
export async function runCli(argv: string[], io: CliIo = defaultIo, env: Record<string, string | undefined> = process.env): Promise<number> {
  const [group, sub] = argv;
  const twoWord = group && sub ? commandTable[`${group} ${sub}`] : undefined;
  const command: Command | undefined = twoWord ?? (group ? commandTable[group] : undefined);
  const rest = argv.slice(twoWord ? 2 : 1);
  if (!command || group === 'help' || group === '--help') {
    (command ? io.out : io.err)(usage());
    return group === 'help' || group === '--help' ? 0 : 2;
  }
  let config: Config;
  try {
    config = loadConfig(readEnvironment(env));
  } catch (error) {
    if (error instanceof ConfigError) {
      io.err(error.message);
      return 2;
    }
    throw error;
  }
  try {
    return await command.run(rest, { config, io, env });
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${error.message}\n\n${usage()}`);
      return 2;
    }
    if (isGatewayError(error)) {
      io.err(`Refused: ${error.message}`);
      return 1;
    }
    if (isStoreUnavailable(error)) {
      io.err('The store cannot be reached; check DATABASE_URL and that the database is running.');
      return 1;
    }
    io.err(`Failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

export class UsageError extends Error {}

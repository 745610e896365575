// The operator CLI: `npm run -s gateway -- <group> <command> [--flags]`. Thin over the use cases.
import { ConfigError, loadConfig, readEnvironment, type Config } from '../config.ts';
import { isGatewayError } from '../domain/errors.ts';
import { SecretKeyMismatchError } from '../domain/secret-key-check.ts';
import { ServeLockHeldError } from '../store/sqlite/serve-lock.ts';
import { isStoreUnavailable } from '../store/store-unavailable.ts';
import { commandTable } from './commands/index.ts';
import { UsageError, type CliIo, type Command } from './commands/context.ts';

export type { CliIo } from './commands/context.ts';
export { UsageError } from './commands/context.ts';

const defaultIo: CliIo = { out: (t) => process.stdout.write(`${t}\n`), err: (t) => process.stderr.write(`${t}\n`) };
const INVOCATION = 'npm run -s gateway --';

export function usage(): string {
  const lines = Object.entries(commandTable).map(([name, c]) => `  ${name.padEnd(30)} ${c.summary}`);
  return [
    `Usage: ${INVOCATION} <command> [options]`,
    '',
    'Commands:',
    ...lines,
    '',
    `Help on one command: ${INVOCATION} <command> --help`,
  ].join('\n');
}

export function commandHelp(name: string, command: Command): string {
  return [`Usage: ${INVOCATION} ${name}${command.usage ? ` ${command.usage}` : ''}`, '', command.summary].join('\n');
}

const isHelpFlag = (arg: string) => arg === '--help' || arg === '-h';

/** Returns the process exit code: 0 ok, 1 refused or failed, 2 usage or configuration. */
export async function runCli(
  argv: string[],
  io: CliIo = defaultIo,
  env: Record<string, string | undefined> = process.env,
): Promise<number> {
  const [group, sub] = argv;
  if (group === undefined || group === 'help' || isHelpFlag(group)) {
    // Asked for: stdout, exit 0. Nothing given: the same text is a usage error.
    (group === undefined ? io.err : io.out)(usage());
    return group === undefined ? 2 : 0;
  }
  const twoWord = sub !== undefined ? `${group} ${sub}` : undefined;
  const name = twoWord !== undefined && commandTable[twoWord] ? twoWord : group;
  const command = commandTable[name];
  if (!command) {
    io.err(`Unknown command '${twoWord ?? group}'.\n\n${usage()}`);
    return 2;
  }
  const rest = argv.slice(name.split(' ').length);
  if (rest.some(isHelpFlag)) {
    io.out(commandHelp(name, command));
    return 0;
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
      io.err(`${error.message}\n\n${commandHelp(name, command)}`);
      return 2;
    }
    if (error instanceof ConfigError) {
      io.err(error.message);
      return 2;
    }
    if (error instanceof SecretKeyMismatchError) {
      io.err(error.message);
      return 2;
    }
    if (error instanceof ServeLockHeldError) {
      io.err(error.message);
      return 1;
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

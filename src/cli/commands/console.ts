// operator create | list | disable | enable, merchant set-console-password — console accounts.
// Each change is written to the console's audit log as done by the CLI.
import { openMigratedStore, resolveSecretKey } from '../../bootstrap.ts';
import { createConsoleServices, type ConsoleServices } from '../../app/console/console-services.ts';
import { MAX_PASSWORD_LENGTH } from '../../domain/console-password.ts';
import type { Command, CommandContext } from './context.ts';
import { UsageError, flags, requirePositional, table } from './context.ts';

const CLI = { role: 'cli', id: null } as const;
const CLI_ORIGIN = { remoteAddr: null, requestId: null };

async function withConsole<T>(ctx: CommandContext, work: (c: ConsoleServices) => Promise<T>): Promise<T> {
  const key = resolveSecretKey(ctx.config);
  const store = await openMigratedStore(ctx.config);
  try {
    return await work(createConsoleServices(ctx.config, store, key));
  } finally {
    await store.close();
  }
}

/** The password piped in (`printf %s "$PW" | … --password-stdin`): one line, the newline dropped. */
async function readPasswordFromStdin(): Promise<string> {
  let text = '';
  process.stdin.setEncoding('utf8');
  for await (const chunk of process.stdin) {
    text += chunk as string;
    if (text.length > MAX_PASSWORD_LENGTH + 2)
      throw new UsageError(`the password on stdin is longer than ${MAX_PASSWORD_LENGTH} characters`);
  }
  const password = text.replace(/\r?\n$/, '');
  if (password.includes('\n')) throw new UsageError('--password-stdin reads one line; stdin had several');
  return password;
}

function operatorStatusCommand(status: 'active' | 'disabled', summary: string): Command {
  return {
    summary,
    usage: '<username> [--json]',
    async run(args, ctx) {
      const { values, positionals } = flags(args, { json: { type: 'boolean' } });
      const username = requirePositional(positionals, 'username');
      const operator = await withConsole(ctx, async (c) => {
        const updated = await c.accounts.setOperatorStatus(username, status);
        await c.audit.record(
          CLI,
          status === 'disabled' ? 'operator.disable' : 'operator.enable',
          updated.username,
          {},
          CLI_ORIGIN,
        );
        return updated;
      });
      if (values.json) ctx.io.out(JSON.stringify({ username: operator.username, status }));
      else
        ctx.io.out(
          `Operator ${operator.username} ` +
            `${status === 'active' ? 'enabled' : 'disabled; their console sessions have ended'}.`,
        );
      return 0;
    },
  };
}

export const consoleCommands: Record<string, Command> = {
  'operator create': {
    summary: 'create a console operator; prints a generated password (and with --totp the authenticator URI) once',
    usage: '--username <name> [--totp] [--password-stdin] [--json]',
    async run(args, ctx) {
      const { values } = flags(args, {
        username: { type: 'string', required: true },
        totp: { type: 'boolean' },
        'password-stdin': { type: 'boolean' },
        json: { type: 'boolean' },
      });
      const password = values['password-stdin'] ? await readPasswordFromStdin() : undefined;
      const created = await withConsole(ctx, async (c) => {
        const result = await c.accounts.createOperator({
          username: values.username!,
          totp: values.totp === true,
          ...(password !== undefined && { password }),
        });
        await c.audit.record(CLI, 'operator.create', result.username, { totp: values.totp === true }, CLI_ORIGIN);
        return result;
      });
      if (values.json) {
        ctx.io.out(
          JSON.stringify({
            username: created.username,
            password: created.password ?? null,
            otpauth_uri: created.otpauthUri ?? null,
          }),
        );
        return 0;
      }
      ctx.io.out(
        [
          `Operator ${created.username} created.` +
            `${created.password || created.otpauthUri ? ' Store these now; they are not shown again.' : ''}`,
          ...(created.password ? [`  password:    ${created.password}`] : []),
          ...(created.otpauthUri
            ? [
                `  otpauth URI: ${created.otpauthUri}`,
                '  (add it to an authenticator app; the console asks for its 6-digit code at login)',
              ]
            : []),
        ].join('\n'),
      );
      return 0;
    },
  },
  'operator list': {
    summary: 'console operators (no secrets)',
    usage: '[--json]',
    async run(args, ctx) {
      const { values } = flags(args, { json: { type: 'boolean' } });
      const operators = await withConsole(ctx, (c) => c.accounts.listOperators());
      const rows = operators.map((o) => ({
        username: o.username,
        status: o.status,
        totp: o.totpSecretSealed !== null,
        created_at: new Date(o.createdAt).toISOString(),
      }));
      if (values.json) ctx.io.out(JSON.stringify({ operators: rows }));
      else if (rows.length === 0) ctx.io.out('No operators.');
      else
        table(
          ctx.io,
          ['USERNAME', 'STATUS', 'TOTP', 'CREATED_AT'],
          rows.map((r) => [r.username, r.status, r.totp ? 'yes' : 'no', r.created_at]),
        );
      return 0;
    },
  },
  'operator reset-password': {
    summary: "replace an operator's console password (a generated one is printed once); their sessions end",
    usage: '<username> [--password-stdin] [--json]',
    async run(args, ctx) {
      const { values, positionals } = flags(args, { 'password-stdin': { type: 'boolean' }, json: { type: 'boolean' } });
      const username = requirePositional(positionals, 'username');
      const password = values['password-stdin'] ? await readPasswordFromStdin() : undefined;
      const result = await withConsole(ctx, async (c) => {
        const reset = await c.accounts.resetOperatorPassword(username, password);
        await c.audit.record(CLI, 'operator.reset_password', reset.username, {}, CLI_ORIGIN);
        return reset;
      });
      if (values.json) ctx.io.out(JSON.stringify({ username: result.username, password: result.password ?? null }));
      else
        ctx.io.out(
          result.password
            ? `New password for ${result.username} (shown once): ${result.password}`
            : `Password of ${result.username} replaced; their console sessions have ended.`,
        );
      return 0;
    },
  },
  'operator disable': operatorStatusCommand(
    'disabled',
    'stop an operator logging in to the console (their sessions end)',
  ),
  'operator enable': operatorStatusCommand('active', 'let a disabled operator log in again'),
  'merchant set-console-password': {
    summary: "issue a merchant's console password (printed once; separate from the API password)",
    usage: '<merchantid> [--json]',
    async run(args, ctx) {
      const { values, positionals } = flags(args, { json: { type: 'boolean' } });
      const id = requirePositional(positionals, 'merchantid');
      if (positionals.length > 1) throw new UsageError('one merchantid only');
      const issued = await withConsole(ctx, async (c) => {
        const result = await c.accounts.issueMerchantPassword(id);
        await c.audit.record(CLI, 'merchant.console_password', id, {}, CLI_ORIGIN);
        return result;
      });
      if (values.json) ctx.io.out(JSON.stringify(issued));
      else
        ctx.io.out(
          `Console password for ${id} (shown once): ${issued.password}\n` +
            `The merchant logs in at /console with merchantid ${id} and this password.`,
        );
      return 0;
    },
  },
};

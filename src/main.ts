// Process entry for `npm start`: sandbox gateway on SQLite with no setup.
import { runCli } from './cli/run-cli.ts';

process.exitCode = await runCli(['serve', ...process.argv.slice(2)]);

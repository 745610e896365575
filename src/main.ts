// Process entry for `npm start` and the container: sandbox gateway on SQLite with no setup.
import { ignoreClosedPipes } from './cli/closed-pipe.ts';
import { runCli } from './cli/run-cli.ts';

ignoreClosedPipes();
process.exitCode = await runCli(['serve', ...process.argv.slice(2)]);

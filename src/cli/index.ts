// Entry for `npm run -s gateway -- <command>`.
import { ignoreClosedPipes } from './closed-pipe.ts';
import { runCli } from './run-cli.ts';

ignoreClosedPipes();
process.exitCode = await runCli(process.argv.slice(2));

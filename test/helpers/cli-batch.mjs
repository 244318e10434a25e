// Runs many CLI command lines in one Node process, one after another, each as `octx-export <args>`
// would from the working folder: for a test that runs a list of commands where each process would
// pay Node's start and the CLI's module loading again (test/cli/help-examples.test.ts).
//
//   node cli-batch.mjs <compiled src/cli/cli.js>   stdin: JSON [[arg, …], …]
//   stdout: JSON [{ "code": <exit code>, "stderr": "<what it wrote there>" }, …], one per line given
//
// It stops after the first command that fails (a later one may need its output).
import { Buffer } from 'node:buffer';
import process from 'node:process';
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';

const [cliModule] = process.argv.slice(2);
const { main } = await import(pathToFileURL(cliModule).href);
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const lines = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const results = [];
for (const args of lines) {
  let stderr = '';
  // Streams, as the CLI's own are (a command may pipe into them); stdout is not looked at.
  const stdout = new Writable({ write: (_chunk, _encoding, done) => done() });
  const err = new Writable({ decodeStrings: false, write: (chunk, _encoding, done) => ((stderr += String(chunk)), done()) });
  const io = { stdout, stderr: err };
  const code = await main(args, io);
  results.push({ code, stderr });
  if (code !== 0) break;
}
process.stdout.write(JSON.stringify(results));

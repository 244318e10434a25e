#!/usr/bin/env node
/**
 * `octx-export` executable: runs the CLI (see cli.ts) with the process arguments and sets the
 * exit code (0 ok, 1 invalid package or failed export, 2 usage or I/O error; 0 as well when the
 * reader of its output went away, see closed-pipe.ts).
 */
import { main } from './cli.js';
import { endQuietlyOnClosedPipe, pipeClosed } from './closed-pipe.js';
import { installSignalCleanup } from './signals.js';
import { capYoungGeneration } from './peak-memory-cap.js';

installSignalCleanup();
// The CLI owns its process, so it may size V8's heap (see peak-memory-cap.ts).
capYoungGeneration();
endQuietlyOnClosedPipe();
const code = await main(process.argv.slice(2));
process.exitCode = pipeClosed() ? 0 : code;

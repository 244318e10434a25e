#!/usr/bin/env node
/**
 * `octx-export` executable: runs the CLI (see cli.ts) with the process arguments and sets the
 * exit code (0 ok, 1 invalid package or failed export, 2 usage or I/O error).
 */
import { main } from './cli.js';
import { installSignalCleanup } from './signals.js';

installSignalCleanup();
process.exitCode = await main(process.argv.slice(2));

// Preloaded (`node --import`) into the CLI processes that bench/workdir-memory.ts measures: when the
// process exits, it writes its peak RSS and CPU time to the file named by BENCH_MAXRSS_FILE. It
// measures the whole process, module loading included, as `/usr/bin/time -v` would, and works the
// same on every platform Node supports. It allocates nothing until exit.
import { writeFileSync } from 'node:fs';
import process from 'node:process';

const file = process.env.BENCH_MAXRSS_FILE;
if (file) {
  delete process.env.BENCH_MAXRSS_FILE; // not inherited by anything the CLI might start
  process.on('exit', (code) => {
    const r = process.resourceUsage();
    writeFileSync(file, JSON.stringify({ code, maxRssKiB: r.maxRSS, userMs: r.userCPUTime / 1000, systemMs: r.systemCPUTime / 1000, uptimeMs: process.uptime() * 1000 }));
  });
}

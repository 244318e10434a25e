/**
 * CPU time of the current process and of the processes it started, for the test profile
 * (test/helpers/profile-reporter.ts). On a machine shared with other work, wall time says more
 * about the load than about a test file; CPU time is what the file costs.
 *
 * On Linux, `/proc/self/stat` gives the process's own user and system time and those of its
 * children that ended and were waited for (Node waits for every child it spawns): the CLI, Python,
 * npm and browsers a file starts, with their own children. Elsewhere only the process's own time
 * is known (`process.cpuUsage()`), and `childMs` is 0.
 */
import { readFileSync } from 'node:fs';

/** CPU time spent so far, in milliseconds. */
export interface CpuTime {
  /** This process (every thread: worker threads included), user and system. */
  readonly ownMs: number;
  /** Its children that have ended, and their children, user and system. */
  readonly childMs: number;
}

/** Clock ticks per second of /proc's times (USER_HZ: 100 on every Linux Node runs on). */
const TICKS_PER_SECOND = 100;

/** The CPU time of this process and its ended children so far. */
export function cpuTime(): CpuTime {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count fields after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14–17 of proc(5) (utime, stime, cutime, cstime) are 12–15 after the name.
    const [utime, stime, cutime, cstime] = fields.slice(11, 15).map(Number) as [number, number, number, number];
    const ms = (ticks: number): number => (ticks * 1000) / TICKS_PER_SECOND;
    return { ownMs: ms(utime + stime), childMs: ms(cutime + cstime) };
  } catch {
    const { user, system } = process.cpuUsage();
    return { ownMs: (user + system) / 1000, childMs: 0 };
  }
}

/** What was spent between `start` and `end`. */
export function cpuSpent(start: CpuTime, end: CpuTime): CpuTime {
  return { ownMs: end.ownMs - start.ownMs, childMs: end.childMs - start.childMs };
}

/**
 * Who owns a leftover: the process that created a spill folder, a temporary output or a state
 * lock. A process killed with SIGKILL (or a crashed machine) cleans nothing up, so later runs
 * look at the owner of what they find and remove it only when that owner is certainly gone: it ran
 * on this host and no process has its PID any more. Anything else (another host, a PID that is
 * alive or reused, an unreadable record) is left alone.
 */
import { hostname } from 'node:os';

/** The process that owns a leftover. */
export interface ProcessOwner {
  readonly pid: number;
  readonly host: string;
  /** When the owning process started (ISO 8601). */
  readonly started: string;
}

/** This process, as an owner record. */
export function currentOwner(): ProcessOwner {
  return { pid: process.pid, host: hostname(), started: new Date(Date.now() - process.uptime() * 1000).toISOString() };
}

/** An owner record read back from JSON, or `undefined` when the text is not one. */
export function parseOwner(text: string): ProcessOwner | undefined {
  try {
    const v = JSON.parse(text) as Partial<ProcessOwner> | null;
    if (v && Number.isSafeInteger(v.pid) && (v.pid as number) > 0 && typeof v.host === 'string' && typeof v.started === 'string')
      return { pid: v.pid as number, host: v.host, started: v.started };
  } catch {
    // not an owner record
  }
  return undefined;
}

/** True when no process on this host has `pid` (ESRCH); a process we may not signal (EPERM) exists. */
export function isPidDead(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** True only when the owner ran on this host and its process is gone. */
export function isOwnerGone(owner: ProcessOwner): boolean {
  return owner.host === hostname() && isPidDead(owner.pid);
}

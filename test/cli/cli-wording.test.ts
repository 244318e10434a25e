/**
 * Every message the CLI prints is in CLI terms (issue 22): a set of failing invocations of every
 * command, each run plain and with `--json`, prints no SDK call (`addDocument()`,
 * `export({ limits })`), no SDK option literal (`overwrite: true`, `verifyContentHash: false`) and
 * never its code twice (`error[OCTX_X]: OCTX_X …`, a JSON `message` starting with the code).
 * Runs the CLI in-process (`main` with captured streams).
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withoutCode } from '../../src/cli/cli-terms.js';
import { hintFor } from '../../src/cli/errors.js';
import { inCliTerms } from '../../src/cli/cli-terms.js';
import { OCTX_CODES, type OctxCode } from '../../src/model/codes.js';
import { GOLDEN, ROOT, tempDir } from '../helpers/temp.js';
import { cliInProcess } from './cli-in-process.js';

const FIXTURE = join(ROOT, 'fixtures/kb-three-kingdoms');
const ASSET = ['--asset-id', '019c0000-0000-7000-8000-000000000001'];

/** SDK wording a CLI user cannot act on: a call (`name()`, `name({`), an option literal (`overwrite: true`). */
const SDK_TERMS = /\b[a-z][A-Za-z]*\((?:\)|\{)|\b(?:overwrite|[a-z]+[A-Z][A-Za-z]*): (?:true|false)\b/;

const cli = cliInProcess;

/** The failing invocations, with the code each must report, in a fresh folder. */
function failures(): { args: string[]; code: OctxCode }[] {
  const d = tempDir('octx-wording-');
  mkdirSync(join(d, 'empty/knowledge'), { recursive: true });
  writeFileSync(join(d, 'exists.octx'), 'x');
  writeFileSync(join(d, 'garbage.octx'), 'not a zip');
  writeFileSync(join(d, 'bad.jsonl'), '{"chunk_id": 1,,}\n');
  // A source file edited after extraction: its content hash no longer matches the envelope.
  cpSync(join(ROOT, 'fixtures/ingest/sources'), join(d, 'sources'), { recursive: true });
  const edited = join(d, 'sources/.claude/wiki/nvidia.md');
  writeFileSync(edited, `${readFileSync(edited, 'utf8')}\nedited\n`);
  // A package whose structure layer is broken: derive refuses it without --documents-only.
  const broken = join(d, 'broken');
  cpSync(join(GOLDEN, 'B_sag_structured'), broken, { recursive: true });
  writeFileSync(join(broken, 'data/chunks.jsonl'), `${readFileSync(join(broken, 'data/chunks.jsonl'), 'utf8')}{"oops": true}\n`);
  mkdirSync(join(d, 'wd'));
  const out = (name: string) => ['-o', join(d, name)];
  return [
    { args: ['build', join(d, 'empty'), ...out('e.octx'), '--name', 'X', ...ASSET], code: 'OCTX_CONCEPT_REQUIRED' },
    { args: ['build', FIXTURE, ...out('exists.octx'), '--name', 'X', ...ASSET], code: 'OCTX_OUTPUT_EXISTS' },
    { args: ['build', FIXTURE, ...out('v.octx'), '--name', 'X', '--version', 'v1', ...ASSET], code: 'OCTX_VERSION_INVALID' },
    { args: ['build', FIXTURE, ...out('v.octx'), '--name', 'X', '--created-at', 'yesterday', ...ASSET], code: 'OCTX_RELEASE_CREATED_AT_INVALID' },
    { args: ['build', FIXTURE, ...out('v.octx'), '--name', 'X', '--asset-id', 'nope'], code: 'OCTX_USAGE_ERROR' },
    { args: ['build', FIXTURE, ...out('v.octx'), '--name', 'X', '--strict'], code: 'OCTX_STRICT_VIOLATION' },
    { args: ['build', FIXTURE, ...out('v.octx'), '--name', 'X', '--max-entries', '3', ...ASSET], code: 'OCTX_RESOURCE_LIMIT' },
    { args: ['build', FIXTURE, ...out('missing/v.octx'), '--name', 'X', ...ASSET], code: 'OCTX_OUTPUT_INVALID' },
    { args: ['validate', join(d, 'missing.octx')], code: 'OCTX_OPEN_ERROR' },
    { args: ['inspect', join(d, 'garbage.octx')], code: 'OCTX_ARCHIVE_INVALID' },
    { args: ['derive', broken, join(d, 'wd'), ...out('d.octx'), '--name', 'D', ...ASSET], code: 'OCTX_DERIVATION_REQUIRED' },
    { args: ['from-rag', join(d, 'bad.jsonl'), ...out('r.octx'), '--name', 'R', ...ASSET], code: 'OCTX_JSON_INVALID' },
    {
      args: ['from-ingest', join(ROOT, 'fixtures/ingest/envelopes.jsonl'), '--source-root', join(d, 'sources'), ...out('i.octx'), '--name', 'I', ...ASSET],
      code: 'OCTX_ADAPTER_INPUT_INVALID',
    },
    { args: ['from-sag', join(d, 'garbage.octx'), '--source', 's', ...out('s.octx'), '--name', 'S', ...ASSET], code: 'OCTX_OPEN_ERROR' },
    { args: ['build', FIXTURE, ...out('v.octx'), '--name', 'X', '--bogus', ...ASSET], code: 'OCTX_USAGE_ERROR' },
    { args: ['build', FIXTURE, ...out('v.octx'), '--name', 'X', '--shard', '3/3', ...ASSET], code: 'OCTX_USAGE_ERROR' },
    { args: ['build', FIXTURE, ...out('v.octx'), '--name', 'X', '--shard', '1/4', ...ASSET], code: 'OCTX_SHARD_EMPTY' },
    { args: ['build', FIXTURE, ...out('v.octx'), '--name', 'X', '--shard', '0/3', ...ASSET], code: 'OCTX_SHARD_CUT_INVALID' },
    { args: ['build', FIXTURE, ...out('v.octx'), '--name', 'X', '--ledger', 'redis://user:s3cret@127.0.0.1:1/0', ...ASSET], code: 'OCTX_LEDGER_FAILED' },
  ];
}

describe('CLI messages are in CLI terms', () => {
  it('no failing command prints an SDK call or option literal, or its code twice (plain and --json)', { timeout: 120_000 }, async () => {
    for (const { args, code } of failures()) {
      for (const json of [false, true]) {
        const r = await cli(json ? [...args, '--json'] : args);
        const label = `${json ? '--json ' : ''}${args[0]} → ${code}`;
        expect(r.code, label).toBeGreaterThan(0);
        expect(r.stderr, label).toContain(`error[${code}]: `);
        expect(r.stderr, label).not.toMatch(SDK_TERMS);
        // `error[OCTX_X]: OCTX_X …`, or any line naming the same code twice.
        for (const line of r.stderr.split('\n')) {
          const m = /^error\[(OCTX_[A-Z_]+)\]: (.*)$/.exec(line);
          if (m) expect(m[2]!.includes(m[1]!), `${label}: ${line}`).toBe(false);
        }
        if (!json) continue;
        const doc = JSON.parse(r.stdout) as { ok: boolean; error: { code: string; message: string; hint: string; issues: { code: string; message: string }[] } };
        expect(doc.ok).toBe(false);
        expect(doc.error.code, label).toBe(code);
        for (const text of [doc.error.message, doc.error.hint, ...doc.error.issues.map((i) => i.message)]) {
          expect(text, label).not.toMatch(SDK_TERMS);
          expect(text.startsWith('OCTX_'), `${label}: ${text}`).toBe(false);
        }
        expect(doc.error.message.length, label).toBeGreaterThan(0);
      }
    }
  });

  it('the SDK messages the CLI meets are rewritten (the messages are still the SDK wording in the SDK)', () => {
    expect(inCliTerms('a package needs at least one Concept Document (…); add one with addDocument()')).toBe('a package needs at least one Concept Document (…)');
    expect(inCliTerms('Re-extract, supply that version, or turn the check off (verifyContentHash: false)')).toBe(
      'Re-extract, supply that version, or turn the check off (--skip-hash-check)',
    );
    expect(inCliTerms('release.version must be SemVer')).toBe('--version must be SemVer');
    expect(inCliTerms('knowledge must be a folder inside the folder read (got "../")')).toBe('--knowledge must be a folder inside the folder read (got "../")');
    expect(inCliTerms('knowledge must name a folder inside the folder read, e.g. "docs"')).toBe('--knowledge must name a folder inside the folder read, e.g. "docs"');
    expect(withoutCode('OCTX_OUTPUT_EXISTS (x.octx, field output): x.octx already exists', 'OCTX_OUTPUT_EXISTS')).toBe('x.octx already exists');
    expect(withoutCode('OCTX_ARCHIVE_INVALID: too small', 'OCTX_ARCHIVE_INVALID')).toBe('too small');
    expect(withoutCode('OCTX_ARCHIVE_INVALIDITY: x', 'OCTX_ARCHIVE_INVALID')).toBe('OCTX_ARCHIVE_INVALIDITY: x');
  });

  it('every hint line (of every code) is in CLI terms', () => {
    const sdk = (Object.keys(OCTX_CODES) as OctxCode[]).filter((c) => SDK_TERMS.test(inCliTerms(hintFor(c))) || /\bfrom(Rag|Sag|Ingest)\b/.test(inCliTerms(hintFor(c))));
    expect(sdk).toEqual([]);
  });
});

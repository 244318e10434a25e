import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openPackage, validatePackage } from 'octx-export';
import { ROOT, tempDir } from '../helpers/temp.js';
import { jsonOf, runCli } from './run-cli.js';

const FIX = join(ROOT, 'fixtures/ingest');

describe('octx-export from-ingest (real CLI)', () => {
  it('accepts the example envelopes and exports documents, full-text chunks, extracted events and the triplet extension', async () => {
    const out = join(tempDir(), 'wiki.octx');
    const r = await runCli([
      'from-ingest',
      join(FIX, 'envelopes.jsonl'),
      '--source-root',
      join(FIX, 'sources'),
      '--events',
      join(FIX, 'events.jsonl'),
      '--require-structure',
      '-o',
      out,
      '--name',
      'LLM wiki',
      '--json',
    ]);
    expect(r.code).toBe(0);
    const doc = jsonOf(r);
    expect(doc.capabilities).toEqual({ 'sag-structured': { version: '0.1' } });
    const adapter = doc.adapter as Record<string, any>;
    expect(adapter.envelopes).toMatchObject({ given: 3, kept: 2 });
    expect(adapter.structure.expected).toBe('complete');
    expect(adapter.extension.files).toEqual(['extensions/org.octx-export.ingest-candidate/0.1/triplets.jsonl', 'extensions/org.octx-export.ingest-candidate/0.1/nodes.jsonl']);
    const v = await validatePackage(out);
    expect(v.valid && v.fullyValidated).toBe(true);
    const pkg = await openPackage(out);
    try {
      const chunks = [];
      for await (const { record } of pkg.chunks()) chunks.push(record);
      expect(chunks).toHaveLength(2);
      expect(chunks.map((c) => c.text).sort()).toEqual(['graph-rag.md', 'nvidia.md'].map((f) => readFileSync(join(FIX, 'sources/.claude/wiki', f), 'utf8')).sort());
      expect(pkg.info.files.map((f) => f.path)).toContain('extensions/org.octx-export.ingest-candidate/0.1/triplets.jsonl');
    } finally {
      await pkg.close();
    }
  });

  it('without events the package is documents-only and says why; schema violations are refused with the rule named', async () => {
    const tmp = tempDir();
    const bad = join(tmp, 'bad.jsonl');
    const [first, second] = readFileSync(join(FIX, 'envelopes.jsonl'), 'utf8').trim().split('\n').slice(1) as [string, string];
    const broken = JSON.parse(second) as Record<string, any>;
    broken.extractor.tier = 'medium';
    broken.triplets = [];
    broken.clusters = ['c1'];
    writeFileSync(bad, `${first}\n${JSON.stringify(broken)}\n`);
    const [docsOnly, refused] = await Promise.all([
      runCli([
        'from-ingest',
        join(FIX, 'envelopes.jsonl'),
        '--source-root',
        join(FIX, 'sources'),
        '--namespace',
        'com.example.wiki',
        '-o',
        join(tmp, 'docs.octx'),
        '--name',
        'LLM wiki',
      ]),
      runCli(['from-ingest', bad, '--source-root', join(FIX, 'sources'), '-o', join(tmp, 'bad.octx'), '--name', 'LLM wiki']),
    ]);
    expect(docsOnly.code).toBe(0);
    expect(docsOnly.stdout).toContain('capabilities  none — documents only');
    expect(docsOnly.stdout).toContain('extension     7 triplet(s), 9 node(s) in extensions/com.example.wiki/0.1/');
    expect(docsOnly.stdout).toMatch(/note {10}structure expected documents-only: no event extractor was given/);
    expect((await validatePackage(join(tmp, 'docs.octx'))).valid).toBe(true);

    expect(refused.code).toBe(1);
    // One block per issue (error[CODE]: message, then its place lines), then one hint line.
    const blocks = refused.stderr.trimEnd().split(/\n(?=error\[|hint: )/);
    expect(blocks).toHaveLength(4);
    expect(blocks.slice(0, 3).sort()).toEqual(
      [
        `error[OCTX_ADAPTER_INPUT_INVALID]: envelope #2 breaks schema rule "additionalProperties" at #/additionalProperties: the envelope: property "clusters" is not allowed (additionalProperties)\n  --> ${bad}:2\n  field (envelope)`,
        `error[OCTX_ADAPTER_INPUT_INVALID]: envelope #2 breaks schema rule "enum" at #/properties/extractor/properties/tier/enum: /extractor/tier: "medium" is not one of "shallow", "deep" (enum)\n  --> ${bad}:2\n  field /extractor/tier`,
        `error[OCTX_ADAPTER_INPUT_INVALID]: envelope #2 breaks schema rule "minItems" at #/properties/triplets/minItems: /triplets: must have at least 1 item(s) (minItems)\n  --> ${bad}:2\n  field /triplets`,
      ].sort(),
    );
    expect(blocks[3]).toMatch(/^hint: /);
  });
});

import { describe, expect, it } from 'vitest';
import { builderOptions } from '../../src/cli/export-run.js';

const base = { name: 'Guide', output: 'out.octx' };

describe('export options of the exporting commands', () => {
  it('passes --compression-level to the builder, which compresses at it while collecting', () => {
    expect(builderOptions({ ...base, 'compression-level': '0' })).toMatchObject({ compressionLevel: 0 });
    expect(builderOptions({ ...base, 'compression-level': '9' })).toMatchObject({ compressionLevel: 9 });
    expect(builderOptions(base)).not.toHaveProperty('compressionLevel');
  });

  it('refuses a level that is not an integer from 0 to 9 as a usage error naming the option', () => {
    for (const bad of ['10', '-1', '6.5', 'fast', '']) {
      expect(() => builderOptions({ ...base, 'compression-level': bad })).toThrow(
        expect.objectContaining({ code: 'OCTX_USAGE_ERROR', issues: [expect.objectContaining({ field: 'compression-level' })] }),
      );
    }
  });
});

/**
 * SAG database: one source of a zleap-sag engine SQLite database becomes a sag-structured
 * package. `idMode: 'sag-compatible'` gives the record ids SAG's own exporter would write.
 *
 *   npx tsx examples/sag-database.ts [out.octx] [sag.db] [source id]
 *
 * Without a database, a small demo database is created first, next to the output as
 * `sag-demo.db` (the test fixture of the adapter; `octx-export from-sag` can read it too).
 */
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PackageBuilder, validatePackage } from 'octx-export';
import { fromSagDatabase } from 'octx-export/adapters/sag';

const output = process.argv[2] ?? fileURLToPath(new URL('../out/sag.octx', import.meta.url));
let database = process.argv[3];
let sourceId = process.argv[4];
if (!database) {
  const { createSagDatabase, SAG } = await import('../test/adapters/sag-fixture.js');
  database = join(dirname(output), 'sag-demo.db');
  mkdirSync(dirname(output), { recursive: true });
  rmSync(database, { force: true });
  createSagDatabase(database, 1);
  console.log(`created the demo database ${database} (source ${SAG.source})`);
  sourceId = SAG.source;
}
if (!sourceId) throw new Error('usage: examples/sag-database.ts [out.octx] [sag.db] [source id]');

const builder = new PackageBuilder({ asset: { name: 'SAG source export' } });
const report = await fromSagDatabase(builder, database, { sourceId, idMode: 'sag-compatible' });
const result = await builder.export({ output, overwrite: true });
const validation = await validatePackage(result.output);
console.log(`SAG database — ${result.output}`);
console.log(`  source ${report.source.id}${report.source.name ? ` "${report.source.name}"` : ''} (schema ${report.generation})`);
console.log(
  `  ${report.documents.count} documents, ${report.chunks.count} chunks, ${report.events.count} events (${report.events.softDeleted} soft-deleted left out), ${report.entities.count} entities`,
);
console.log(`  ids: ${report.ids.preserved} preserved, ${report.ids.sagCompatible} sag-compatible, ${report.ids.ledger} from the ledger`);
console.log(`  structure ${result.report.structure.status}: ${result.report.structure.reason}`);
console.log(`  validation: ${validation.valid && validation.fullyValidated ? 'valid, fully validated' : 'INVALID'}`);
if (!validation.valid) process.exitCode = 1;

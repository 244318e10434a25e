/**
 * SAG database: one source of a zleap-sag engine SQLite database becomes a sag-structured
 * package. `idMode: 'sag-compatible'` gives the record ids SAG's own exporter would write.
 *
 *   npx tsx examples/sag-database.ts [out.octx] [sag.db] [source id]
 *
 * In SAG v1.7 the engine database is `<SAG_DATA_DIR>/sag.db`, by default `./.data/engine/sag.db`
 * where SAG runs (`./.data/sag.db` is the application's own database, not this one). Without a
 * database, the small demo database shipped in fixtures/sag/engine-0.7.1/sag.db is read.
 */
import { fileURLToPath } from 'node:url';
import { PackageBuilder, validatePackage } from 'octx-export';
import { fromSagDatabase } from 'octx-export/adapters/sag';

const output = process.argv[2] ?? fileURLToPath(new URL('../out/sag.octx', import.meta.url));
const database = process.argv[3] ?? fileURLToPath(new URL('../fixtures/sag/engine-0.7.1/sag.db', import.meta.url));
const sourceId = process.argv[4] ?? (process.argv[3] ? undefined : '5f0c3a1e-9b2d-4c7e-8a41-3d2b1c0e9f87');
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
const skipped = Object.entries(report.articles.skippedByStatus);
if (skipped.length > 0) console.log(`  articles skipped for their status: ${skipped.map(([status, n]) => `${n} ${status}`).join(', ')}`);
console.log(`  ids: ${report.ids.preserved} preserved, ${report.ids.sagCompatible} sag-compatible, ${report.ids.ledger} from the ledger`);
console.log(`  structure ${result.report.structure.status}: ${result.report.structure.reason}`);
console.log(`  validation: ${validation.valid && validation.fullyValidated ? 'valid, fully validated' : 'INVALID'}`);
if (!validation.valid) process.exitCode = 1;

import { PackageBuilder, loadWorkdir, openPackage, validatePackage } from './src/index.ts';
const t = process.argv[2];
const b = new PackageBuilder({ asset: { name: 'x' } });
const r = await loadWorkdir(b, 'fixtures/docs-trees/' + t);
const { warnings, ...rest } = r;
console.log(JSON.stringify(rest, null, 1).slice(0, 5000), warnings.map(w=>[w.code, w.message]));
await b.export({ output: '/tmp/t.octx', overwrite: true });
console.log((await validatePackage('/tmp/t.octx')).valid);
const p = await openPackage('/tmp/t.octx');
for await (const d of p.documents()) { if (process.argv[3] && !d.path.includes(process.argv[3])) continue; console.log('=====', d.path); console.log((await p.readFile(d.path)).toString()); }
await p.close();

import { PackageBuilder, loadWorkdir } from './src/index.ts';
for (const t of ['vitepress','docusaurus','hugo','plain-readme']) {
const b = new PackageBuilder({ asset: { name: 'x' } });
const r = await loadWorkdir(b, 'fixtures/docs-trees/' + t);
console.log(t, r.documents, JSON.stringify(r.site), JSON.stringify(r.mdx), JSON.stringify(r.conventions), r.rewrittenLinks.length, r.warnings.map(w=>w.code));
await b.dispose();
}

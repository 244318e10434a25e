import { validatePackage } from '../../../src/read/index.ts';
for (const p of ['/work/shared/spec/golden/A_documents_only', '/work/shared/spec/golden/B_sag_structured', '/nonexistent']) {
  const r = await validatePackage(p);
  console.log(p, JSON.stringify({ valid: r.valid, full: r.fullyValidated, issues: r.issues, caps: r.capabilities, d: r.packageDigest }, null, 1));
}

import { openPackage } from '../../src/index.js';

/** The text of one file of a written package, read through the SDK's own reader. */
export async function readPackageText(pkg: string, path: string): Promise<string> {
  const p = await openPackage(pkg);
  try {
    return (await p.readFile(path)).toString('utf8');
  } finally {
    await p.close();
  }
}

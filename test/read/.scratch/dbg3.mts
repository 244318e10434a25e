import { openZipSource } from '../../../src/read/zip-source.ts';
import { DEFAULT_ARCHIVE_LIMITS } from '../../../src/read/limits.ts';
import yauzl from 'yauzl';
const proto = (yauzl.RandomAccessReader as any).prototype;
const oref = proto.ref, ounref = proto.unref;
proto.ref = function () { oref.call(this); console.log('ref ->', this.refCount, new Error().stack!.split('\n')[2]); };
proto.unref = function () { console.log('unref <-', this.refCount - 1, new Error().stack!.split('\n')[2]); ounref.call(this); };
const src = await openZipSource(process.argv[2]!, DEFAULT_ARCHIVE_LIMITS);
console.log(src.names());
for (const n of src.names()) { const b = await src.readAll(n); console.log(n, b.length); }

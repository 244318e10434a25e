/**
 * Python's meaning of the words SAG's import rules use, computed in TypeScript: blank and
 * stripped (`str.isspace`, `str.strip`), case-insensitive (`str.casefold` after NFC), a valid time
 * (`datetime.fromisoformat`) and rounding (`Decimal.quantize`, half-even). Each is checked against
 * `python3` by test/consumers/python-differential.test.ts.
 */
export { casefold, codePointLength, nfcCasefold } from '../../model/casefold.js';
export { pythonNfc } from '../../model/python-nfc.js';
export { PYTHON_LATER_UNICODE_VERSION, PYTHON_UNICODE_VERSION, type PythonUnicode } from '../../model/python-unicode.js';
export { pythonQuantize2, sagWeight, type SagWeight } from './decimal-quantize.js';
export { pythonFromIsoformat, pythonIsoformat, pythonParsesIsoDatetime, sagDatetime, type PythonDatetime } from './fromisoformat.js';
export { pythonIsSpace, pythonLstrip, pythonStrip } from './strip.js';

/** Python's `str.isspace()`, `str.strip()`, `str.lstrip()` (in `model/`, where the knowledge layer reads them too). */
export { pythonIsSpace, pythonLstrip, pythonStrip } from '../../model/python-strip.js';

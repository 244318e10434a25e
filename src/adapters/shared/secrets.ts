/**
 * Secret-looking keys are dropped from what an adapter copies verbatim into a package (a RAG
 * chunk's `extend`, unknown fields): a published package must not carry an API key that happened
 * to sit in a metadata object.
 */

const SECRET_TOKENS = ['apikey', 'secret', 'token', 'password', 'passwd', 'credential', 'authorization', 'privatekey', 'accesskey'];

/** True for a key that looks like it holds a secret (the SAG exporter's scrub list). */
export function isSecretLikeKey(key: string): boolean {
  const k = key.toLowerCase().replace(/[^a-z0-9]/g, '');
  return SECRET_TOKENS.some((t) => k.includes(t));
}

/**
 * A deep copy of a JSON value without secret-looking keys; `dropped` collects the dotted paths of
 * the keys removed (never their values).
 * @param at the dotted path of `value` (empty at the top level), the prefix of what `dropped` gets
 */
export function scrubSecrets(value: unknown, at: string, dropped: string[]): unknown {
  if (Array.isArray(value)) return value.map((v, i) => scrubSecrets(v, `${at}[${i}]`, dropped));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const here = at === '' ? k : `${at}.${k}`;
      if (isSecretLikeKey(k)) {
        dropped.push(here);
        continue;
      }
      out[k] = scrubSecrets(v, here, dropped);
    }
    return out;
  }
  return value;
}

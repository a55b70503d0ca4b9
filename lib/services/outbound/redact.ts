// Takes a secret out of text before it is returned, stored or shown: the value as sent, its token without the scheme,
// and the ways a provider may echo it (URL-encoded, JSON-escaped).

export const REDACTED = "[redacted]";

/** Parts shorter than this are not redacted on their own ("Bearer x" would otherwise redact every "x"). */
const MIN_PART = 8;
/** A cut text ending in this much of a secret loses that end too. */
const MIN_TAIL = 3;

/** Every spelling of the secret worth looking for, longest first so a longer match is not half-replaced. */
export function secretForms(secret: string): string[] {
  const forms = new Set<string>([secret]);
  const token = /^\S+\s+(\S+)$/.exec(secret)?.[1];
  const parts = token && token.length >= MIN_PART ? [secret, token] : [secret];
  for (const part of parts) {
    forms.add(part);
    forms.add(encodeURIComponent(part));
    forms.add(JSON.stringify(part).slice(1, -1));
  }
  return [...forms].filter((f) => f.length > 0).sort((a, b) => b.length - a.length);
}

/**
 * `text` without the secret. `cut`: the text was cut at a size cap, so it may end in the first characters of the
 * secret; that end goes too.
 */
export function redact(text: string, secret: string | null, cut = false): string {
  if (!secret) return text;
  const forms = secretForms(secret);
  let out = text;
  for (const form of forms) out = out.split(form).join(REDACTED);
  if (cut) {
    for (const form of forms) {
      for (let n = Math.min(form.length - 1, out.length); n >= MIN_TAIL; n--) {
        if (out.endsWith(form.slice(0, n))) {
          out = `${out.slice(0, out.length - n)}${REDACTED}`;
          break;
        }
      }
    }
  }
  return out;
}

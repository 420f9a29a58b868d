/**
 * The `pii` filter: personal data in upstream text becomes `[redacted:<kind>]` — email
 * addresses, phone numbers (international, written with `+`, and North American), IBANs
 * (checked with their mod-97 check digits) and payment card numbers (13–19 digits, checked
 * with Luhn). A number that fails its check is left as it is: most long numbers are not cards.
 * Numbers take one regex pass per string, a match starting only where a number does (a
 * look-behind of one character), so a long run of digits is scanned once, not once per
 * position; addresses are found from their `@` ({@link redactEmails}).
 */
import type { TextFilter } from "./types.ts";
import { mapStrings, redactor, type RedactRule } from "./strings.ts";

/** True when the digits of `s` pass the Luhn check. */
export function luhnValid(s: string): boolean {
  let sum = 0;
  let double = false;
  let digits = 0;
  for (let i = s.length - 1; i >= 0; i--) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) continue;
    digits++;
    let d = c;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return digits >= 13 && digits <= 19 && sum % 10 === 0;
}

/** True when `s` (spaces allowed) is an IBAN whose check digits are right (ISO 13616). */
export function ibanValid(s: string): boolean {
  const iban = s.replace(/ /g, "");
  if (iban.length < 15 || iban.length > 34) return false;
  const moved = iban.slice(4) + iban.slice(0, 4);
  let rest = 0;
  for (let i = 0; i < moved.length; i++) {
    const c = moved.charCodeAt(i);
    const v = c >= 65 ? c - 55 : c - 48; // A = 10 … Z = 35
    rest = v > 9 ? (rest * 100 + v) % 97 : (rest * 10 + v) % 97;
  }
  return rest === 1;
}

/** An IBAN match: redacted when valid; a last short group may be a word that followed it. */
function iban(match: string): string {
  if (ibanValid(match)) return "[redacted:iban]";
  const cut = match.lastIndexOf(" ");
  if (cut > 0 && ibanValid(match.slice(0, cut))) return `[redacted:iban]${match.slice(cut)}`;
  return match;
}

/** The rules, in the order they are tried at one position. */
export const PII_RULES: readonly RedactRule[] = [
  {
    label: "iban",
    source: String
      .raw`(?<![A-Za-z0-9])[A-Z]{2}[0-9]{2}(?:[A-Z0-9]{11,30}|(?: [A-Z0-9]{4}){2,7}(?: [A-Z0-9]{1,4})?)(?![A-Za-z0-9])`,
    replace: iban,
  },
  {
    label: "card",
    source: String.raw`(?<![0-9])[0-9](?:[ -]?[0-9]){12,18}(?![0-9])`,
    replace: (m) => luhnValid(m) ? "[redacted:card]" : m,
  },
  {
    label: "phone",
    source: String
      .raw`(?<![\w+])(?:\+[1-9][0-9]{0,2}(?:[ .-]?\(?[0-9]{1,4}\)?){2,5}|\(?[2-9][0-9]{2}\)?[ .-][0-9]{3}[ .-][0-9]{4})(?![0-9])`,
    replace: (m) => {
      const digits = m.replace(/[^0-9]/g, "").length;
      return digits >= 8 && digits <= 15 ? "[redacted:phone]" : m;
    },
  },
];

/** Characters of an address's local part (before the `@`). */
const LOCAL = /[A-Za-z0-9._%+-]/;
/** An address's domain, matched from just after its `@`. */
const DOMAIN = /[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}\.[A-Za-z]{2,24}(?![A-Za-z0-9-])/y;

/**
 * Email addresses, found from their `@` (a native search) rather than by a regex tried at every
 * position: the local part is read backwards (at most 64 characters, starting where a word
 * does), the domain forwards. Text without an `@` costs one `indexOf`.
 */
export function redactEmails(s: string): string {
  let at = s.indexOf("@");
  if (at < 0) return s;
  let out = "";
  let last = 0;
  while (at >= 0) {
    let start = at;
    while (start > last && at - start <= 64 && LOCAL.test(s[start - 1]!)) start--;
    DOMAIN.lastIndex = at + 1;
    const local = at - start;
    const wordStart = start === 0 || !LOCAL.test(s[start - 1]!);
    if (local > 0 && local <= 64 && wordStart && DOMAIN.exec(s)) {
      out += `${s.slice(last, start)}[redacted:email]`;
      last = DOMAIN.lastIndex;
    }
    at = s.indexOf("@", Math.max(at + 1, last));
  }
  return last === 0 ? s : out + s.slice(last);
}

const others = redactor(PII_RULES);
const rewrite = (s: string) => others(redactEmails(s));

/** The `pii` filter. */
export const piiFilter: TextFilter = {
  beside: true,
  name: "pii",
  apply: (value) => mapStrings(value, rewrite),
};

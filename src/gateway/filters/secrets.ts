/**
 * The `secrets` filter: credentials in upstream text become `[redacted:<kind>]` — cloud keys
 * (AWS access key ids and secret keys written beside their name, Google API keys), GitHub,
 * GitLab and Slack tokens, Slack webhook URLs, private-key blocks (PEM, OpenSSH; a block cut
 * before its END line is redacted to the end of its base64 body) and JWTs. One regex pass per
 * string; every repeat is bounded, so no input makes a rule backtrack without end.
 */
import type { TextFilter } from "./types.ts";
import { mapStrings, redactor, type RedactRule } from "./strings.ts";

const KEY_LINE = String.raw`-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----`;
const KEY_END = String.raw`-----END[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----`;

/** The rules, in the order they are tried at one position. */
export const SECRET_RULES: readonly RedactRule[] = [
  {
    label: "private-key",
    source: String.raw`${KEY_LINE}(?:[\s\S]{0,65536}?${KEY_END}|[A-Za-z0-9+/=\s:,-]{0,65536})`,
  },
  {
    label: "aws-key",
    source: String.raw`\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b`,
  },
  {
    // A secret key is 40 base64 characters, found only beside its name (alone it is noise).
    label: "aws-secret",
    source: String
      .raw`(?<awsname>(?:aws_secret_access_key|AWS_SECRET_ACCESS_KEY|SecretAccessKey|secretAccessKey)["']?\s{0,4}[:=]\s{0,4}["']?)[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])`,
    replace: (_, g) => `${g.awsname}[redacted:aws-secret]`,
  },
  { label: "google-api-key", source: String.raw`\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])` },
  {
    label: "github-token",
    source: String.raw`\b(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,255})\b`,
  },
  {
    label: "gitlab-token",
    source: String.raw`\bgl(?:pat|dt|rt|ptt|ft|soat|cbt|imt|agent)-[A-Za-z0-9_-]{20,255}`,
  },
  { label: "slack-token", source: String.raw`\bxox[abposre]-[A-Za-z0-9-]{10,250}` },
  {
    label: "slack-webhook",
    source: String
      .raw`https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]{20,300}`,
  },
  {
    label: "jwt",
    source: String
      .raw`\beyJ[A-Za-z0-9_-]{8,8192}\.eyJ[A-Za-z0-9_-]{8,65536}\.[A-Za-z0-9_-]{8,8192}`,
  },
];

const rewrite = redactor(SECRET_RULES);

/** The `secrets` filter. */
export const secretsFilter: TextFilter = {
  beside: true,
  name: "secrets",
  apply: (value) => mapStrings(value, rewrite),
};

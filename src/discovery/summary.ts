/**
 * One-line summaries of tool descriptions: what a search hit carries instead of the whole
 * description, so a page of hits costs a few hundred tokens. The full text stays one
 * `tool_describe` away.
 */

/** Summaries longer than this are cut at a word boundary. */
export const MAX_SUMMARY = 160;

// A sentence ends at . ! or ? followed by space and a capital, digit, quote or bracket — so
// "e.g. the file" or "v1.2" do not end it — or at the end of the text.
const SENTENCE_END = /[.!?](?=\s+[\p{Lu}\p{N}`"'([]|\s*$)/u;

/** The first sentence of the first non-empty line, at most {@link MAX_SUMMARY} characters. */
export function summarize(description: string | undefined): string {
  if (description === undefined) return "";
  const line = firstLine(description);
  const end = line.search(SENTENCE_END);
  const sentence = end < 0 ? line : line.slice(0, end + 1);
  if (sentence.length <= MAX_SUMMARY) return sentence;
  const cut = sentence.lastIndexOf(" ", MAX_SUMMARY - 1);
  return `${sentence.slice(0, cut > MAX_SUMMARY / 2 ? cut : MAX_SUMMARY - 1).trimEnd()}…`;
}

// Markdown headings and list markers are layout, not words.
function firstLine(text: string): string {
  // Look no further than needed: descriptions can be many kilobytes.
  const head = text.length > 4 * MAX_SUMMARY ? text.slice(0, 4 * MAX_SUMMARY) : text;
  for (const raw of head.split(/\r?\n/)) {
    const line = raw.replace(/^\s*(?:#+|[-*>]|\d+[.)])\s+/, "").replace(/\s+/g, " ").trim();
    if (line !== "") return line;
  }
  return "";
}

/**
 * Editing a client's JSON (or VS Code's JSONC) config in place: `jsonc-parser` edits only the
 * members it is asked to, so the rest of the file — comments, order, indentation, other
 * settings — stays byte for byte. A write keeps a dated backup of the old file first and
 * replaces the file in one rename; `--dry-run` shows the unified diff instead.
 */
import {
  copyFileSync,
  existsSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname } from "node:path";
import { mkdirSync } from "node:fs";
import { createTwoFilesPatch } from "diff";
import {
  applyEdits,
  format,
  modify,
  parse,
  type ParseError,
  printParseErrorCode,
} from "jsonc-parser";
import { GatewayError } from "../shared/errors.ts";

/** A client file before and after an edit. */
export interface FileEdit {
  readonly file: string;
  readonly before: string | null;
  readonly after: string;
}

/**
 * `file` with the value at `path` (`[key, name]`: one server; `[key]`: the whole server map)
 * set to `value`. Only the new text is formatted, in the file's own indentation; a missing file
 * starts as the value alone; a file that does not parse is refused, and so is an edit whose
 * result would not parse.
 */
export function editJson(file: string, path: readonly string[], value: unknown): FileEdit {
  const before = existsSync(file) ? readFileSync(file, "utf8") : null;
  if (before === null) {
    let fresh: unknown = value;
    for (const key of [...path].reverse()) fresh = { [key]: fresh };
    return { file, before, after: JSON.stringify(fresh, null, 2) + "\n" };
  }
  const at = parseProblem(before);
  if (at !== null) throw new GatewayError("CONFIG_INVALID", `${file}: ${at}; left as it is`);
  const options = { insertSpaces: !/^\t/m.test(before), tabSize: indentOf(before), eol: "\n" };
  // A new member goes first in its object: the members after it, and the comments at the ends
  // of their lines, stay where they are.
  const edits = modify(before, [...path], value, { getInsertionIndex: () => 0 });
  let text = applyEdits(before, edits);
  for (const e of edits) {
    // The new text and the character on each side: its first line break and its close.
    const range = { offset: Math.max(0, e.offset - 1), length: e.content.length + 2 };
    text = applyEdits(text, format(text, range, options));
  }
  const broken = parseProblem(text);
  if (broken !== null) {
    throw new GatewayError(
      "CONFIG_INVALID",
      `${file}: the edit would leave ${broken}; left as it is`,
    );
  }
  return { file, before, after: text.endsWith("\n") ? text : text + "\n" };
}

/** What keeps `text` from being a JSON(C) object, or `null`. */
function parseProblem(text: string): string | null {
  const errors: ParseError[] = [];
  const value = parse(text, errors, { allowTrailingComma: true });
  const first = errors[0];
  if (first) return `${printParseErrorCode(first.error)} at offset ${first.offset}`;
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? null
    : "not a JSON object";
}

/** The indentation width the file uses (2 when it shows none). */
function indentOf(text: string): number {
  const m = /^( +)\S/m.exec(text);
  return m ? m[1]!.length : 2;
}

/** The unified diff of `edit` (what `--dry-run` prints). */
export function diffOf(edit: FileEdit): string {
  return createTwoFilesPatch(edit.file, edit.file, edit.before ?? "", edit.after, "now", "after");
}

/**
 * Writes `edit`: the old file is first copied to `<file>.<time>.bak` (returned), then the new
 * text replaces it in one rename, with the old file's mode (0600 for a new file: client configs
 * hold tokens).
 */
export function writeEdit(edit: FileEdit, now = new Date()): string | null {
  const { file, before, after } = edit;
  mkdirSync(dirname(file), { recursive: true });
  let backup: string | null = null;
  let mode = 0o600;
  if (before !== null) {
    backup = `${file}.${now.toISOString().replace(/[:.]/g, "").slice(0, 15)}Z.bak`;
    copyFileSync(file, backup);
    mode = statSync(file).mode & 0o777;
  }
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, after, { mode });
  renameSync(temp, file);
  return backup;
}

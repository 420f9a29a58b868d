/**
 * Where upstream credentials rest: one sealed file per slot (`credentials/<slot>.json` in the
 * state folder), written whole through a temporary file and a rename with mode 0600, so a
 * reader never sees half a file and nobody but the gateway's user reads even the ciphertext.
 * The store only moves sealed boxes; what they hold is {@link StoredCredential}.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type {
  OAuthClientInformationMixed,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import type { OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import { GatewayError, messageOf } from "../../shared/errors.ts";
import type { SealedBox, Vault } from "./vault.ts";

/** What one login keeps: the registered client, its tokens, and where they are used. */
export interface StoredCredential {
  /** The upstream URL the login was made for: a credential never follows a changed URL. */
  serverUrl: string;
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  /** Epoch ms the access token expires (from `expires_in`), or absent when not said. */
  expiresAt?: number;
  /** Discovery results (RFC 9728 and RFC 8414 metadata) the refresh reuses. */
  discovery?: OAuthDiscoveryState;
  /** The RFC 8707 resource the tokens were asked for. */
  resource?: string;
  /** A larger scope a 403 `insufficient_scope` asked for: requested at the next login. */
  stepUpScope?: string;
}

/** Sealed credentials by slot name (`tracker`, later `tracker/<user>`). */
export interface CredentialStore {
  read(slot: string): Promise<StoredCredential | undefined>;
  write(slot: string, credential: StoredCredential): Promise<void>;
  remove(slot: string): Promise<void>;
}

/** Slot names become file names: letters, digits, `_`, `-` and `/` between parts only. */
const SLOT = /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/;

/** The file store in `<stateDir>/credentials/`. */
export class FileCredentialStore implements CredentialStore {
  #dir: string;
  #vault: Vault;

  constructor(stateDir: string, vault: Vault) {
    this.#dir = join(stateDir, "credentials");
    this.#vault = vault;
  }

  #path(slot: string): string {
    if (!SLOT.test(slot)) throw new GatewayError("INTERNAL", `bad credential slot "${slot}"`);
    return join(this.#dir, `${slot}.json`);
  }

  async read(slot: string): Promise<StoredCredential | undefined> {
    const path = this.#path(slot);
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw new GatewayError("INTERNAL", `cannot read ${path}: ${messageOf(err)}`);
    }
    return await this.#vault.open(slot, JSON.parse(text) as SealedBox) as StoredCredential;
  }

  async write(slot: string, credential: StoredCredential): Promise<void> {
    const path = this.#path(slot);
    const box = await this.#vault.seal(slot, credential);
    const folder = join(path, "..");
    const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      writeFileSync(tmp, JSON.stringify(box) + "\n", { mode: 0o600 });
      renameSync(tmp, path);
    } catch (err) {
      rmSync(tmp, { force: true });
      throw new GatewayError("INTERNAL", `cannot write ${path}: ${messageOf(err)}`);
    }
  }

  remove(slot: string): Promise<void> {
    rmSync(this.#path(slot), { force: true });
    return Promise.resolve();
  }
}

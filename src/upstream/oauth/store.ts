/**
 * Where upstream credentials rest: one sealed file per slot (`credentials/<slot>.json` in the
 * state folder, `src/state/`), written whole through a temporary file and a rename with mode
 * 0600 in 0700 folders, so a reader never sees half a file and nobody but the gateway's user
 * reads even the ciphertext.
 * The store only moves sealed boxes; what they hold is {@link StoredCredential}.
 */
import { rmSync } from "node:fs";
import type {
  OAuthClientInformationMixed,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import type { OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import { GatewayError } from "../../shared/errors.ts";
import { readStateFile, statePath, writeStateFile } from "../../state/mod.ts";
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
  /**
   * A lock on `slot` across instances (Redis), held at most `ttlMs`: resolves its release, or
   * `null` when another instance holds it. Absent on a store only one process uses.
   */
  lock?(slot: string, ttlMs: number): Promise<(() => Promise<void>) | null>;
}

/** Slot names become file names: letters, digits, `_`, `-` and `/` between parts only. */
const SLOT = /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/;

/** The file store in `<stateDir>/credentials/`, on the state folder's atomic files. */
export class FileCredentialStore implements CredentialStore {
  #dir: string;
  #vault: Vault;

  constructor(stateDir: string, vault: Vault) {
    this.#dir = stateDir;
    this.#vault = vault;
  }

  #path(slot: string): string {
    if (!SLOT.test(slot)) throw new GatewayError("INTERNAL", `bad credential slot "${slot}"`);
    return statePath(this.#dir, `credentials/${slot}.json`);
  }

  async read(slot: string): Promise<StoredCredential | undefined> {
    const box = readStateFile(this.#path(slot)) as SealedBox | undefined;
    if (box === undefined) return undefined;
    return await this.#vault.open(slot, box) as StoredCredential;
  }

  async write(slot: string, credential: StoredCredential): Promise<void> {
    const box = await this.#vault.seal(slot, credential);
    writeStateFile(this.#path(slot), box); // mode 0600, through a rename
  }

  remove(slot: string): Promise<void> {
    rmSync(this.#path(slot), { force: true });
    return Promise.resolve();
  }
}

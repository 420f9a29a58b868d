/**
 * The key that seals stored upstream credentials, and the sealing: AES-256-GCM (Web Crypto)
 * with a fresh 96-bit IV per write and the slot's name as additional data, so a sealed box
 * copied into another slot (another server, another user) does not open. The key is derived
 * (HKDF-SHA-256) from `gateway.secrets.key`, or from a random key file the gateway makes in the
 * state folder with mode 0600; a key file anyone else may read is refused, never used.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { randomBytes, toHex } from "../../runtime/hash.ts";
import { GatewayError, messageOf } from "../../shared/errors.ts";

/** A sealed value as it is written to disk or Redis. */
export interface SealedBox {
  v: 1;
  /** Base64 IV. */
  iv: string;
  /** Base64 ciphertext with its GCM tag. */
  data: string;
}

const INFO = new TextEncoder().encode("mcp-gateway upstream credentials v1");

/** Seals and opens credential boxes under one key. */
export class Vault {
  #key: CryptoKey;

  private constructor(key: CryptoKey) {
    this.#key = key;
  }

  /**
   * The vault of `configured` (the `gateway.secrets.key` text) when given, else of the key file
   * at `keyFile` (made with mode 0600 when missing). Throws `CONFIG_INVALID` naming the file
   * when its permissions let anyone but its owner read it.
   */
  static async open(configured: string | null, keyFile: string): Promise<Vault> {
    const material = configured !== null
      ? new TextEncoder().encode(configured)
      : readOrMakeKeyFile(keyFile);
    const base = await crypto.subtle.importKey("raw", material as BufferSource, "HKDF", false, [
      "deriveKey",
    ]);
    const key = await crypto.subtle.deriveKey(
      { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: INFO },
      base,
      { name: "AES-GCM", length: 256 },
      false,
      ["encrypt", "decrypt"],
    );
    return new Vault(key);
  }

  /** `value` as JSON, sealed for `slot`. */
  async seal(slot: string, value: unknown): Promise<SealedBox> {
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const plain = new TextEncoder().encode(JSON.stringify(value));
    const data = await crypto.subtle.encrypt(
      { name: "AES-GCM", iv, additionalData: new TextEncoder().encode(slot) },
      this.#key,
      plain,
    );
    return { v: 1, iv: b64(iv), data: b64(new Uint8Array(data)) };
  }

  /** The value sealed in `box` for `slot`; throws when the key or the slot is not the one. */
  async open(slot: string, box: SealedBox): Promise<unknown> {
    if (box?.v !== 1 || typeof box.iv !== "string" || typeof box.data !== "string") {
      throw new GatewayError("INTERNAL", `stored credential ${slot} is not a sealed box`);
    }
    let plain: ArrayBuffer;
    try {
      plain = await crypto.subtle.decrypt(
        {
          name: "AES-GCM",
          iv: unb64(box.iv) as BufferSource,
          additionalData: new TextEncoder().encode(slot),
        },
        this.#key,
        unb64(box.data) as BufferSource,
      );
    } catch {
      throw new GatewayError(
        "INTERNAL",
        `stored credential ${slot} does not open with this key (was gateway.secrets.key or ` +
          "the key file changed?)",
      );
    }
    return JSON.parse(new TextDecoder().decode(plain));
  }
}

/** The key file's bytes; made (32 random bytes, hex, mode 0600) when missing. */
function readOrMakeKeyFile(path: string): Uint8Array {
  let mode: number | null = null;
  try {
    mode = statSync(path).mode;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") {
      throw new GatewayError("CONFIG_INVALID", `cannot read key file ${path}: ${messageOf(err)}`);
    }
  }
  if (mode === null) {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const hex = toHex(randomBytes(32));
    try {
      writeFileSync(path, hex + "\n", { flag: "wx", mode: 0o600 });
    } catch (err) {
      // Another process made it first: its key counts.
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") {
        throw new GatewayError("INTERNAL", `cannot create key file ${path}: ${messageOf(err)}`);
      }
    }
    return readOrMakeKeyFile(path);
  }
  if ((mode & 0o077) !== 0) {
    throw new GatewayError(
      "CONFIG_INVALID",
      `key file ${path} has mode ${(mode & 0o777).toString(8).padStart(4, "0")}: others may ` +
        `read it, so it is not used (chmod 600 ${path}, or set gateway.secrets.key)`,
    );
  }
  const text = readFileSync(path, "utf8").trim();
  if (!/^[0-9a-f]{64}$/i.test(text)) {
    throw new GatewayError("CONFIG_INVALID", `key file ${path} does not hold a 64-digit hex key`);
  }
  return new Uint8Array(text.match(/../g)!.map((h) => parseInt(h, 16)));
}

function b64(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

function unb64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

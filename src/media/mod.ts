/**
 * @module Pictures and files for scripts: image header reading, image values, composition of
 * results with pictures (numbered as `compose.ts` documents) and the read-only VFS. Pure, no network.
 */
export { crc32, type ImageInfo, type ImageMimeType, readImageInfo } from "./image-size.ts";
export {
  decodeBase64,
  type ImageBlock,
  type ImageValue,
  imageValueFromBase64,
  imageValueFromBytes,
  isPicture,
  toImageBlock,
} from "./image-value.ts";
export {
  checkToolResultPictures,
  type ComposedBlock,
  type ComposeOptions,
  composeResult,
  countPictures,
  DEFAULT_MAX_PICTURES,
  extractPictures,
  type TextBlock,
} from "./compose.ts";
export {
  DEFAULT_MOUNT,
  normaliseVfsPath,
  readVfsFile,
  resolveVfsPath,
  type VfsMounts,
} from "./vfs.ts";

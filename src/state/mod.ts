/**
 * @module The state folder (`gateway.state`): small JSON files the gateway keeps across restarts
 * (pinned tool definitions; later upstream credentials), written atomically, and a watch that
 * tells a running gateway when another process changed them.
 */
export {
  defaultStateDir,
  readStateFile,
  statePath,
  stateSecret,
  type WriteOptions,
  writeStateFile,
} from "./folder.ts";
export { type FolderWatch, watchStateFolder } from "./watch.ts";

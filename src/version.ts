/** The gateway's version; a test keeps it equal to package.json's. */
export const VERSION = "0.1.0";
/** The name announced to clients and upstreams. */
export const NAME = "mcp-gateway";

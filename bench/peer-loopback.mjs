// Preloaded into a peer (`node --import bench/peer-loopback.mjs …`) that offers no option for the
// address it listens on and would otherwise listen on every interface: a server it opens without
// a host listens on 127.0.0.1 instead. The benchmark serves loopback only.
import net from "node:net";

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const [first] = args;
  if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
    const rest = args.slice(1);
    const host = typeof rest[0] === "string" ? [] : ["127.0.0.1"];
    return listen.call(this, Number(first), ...host, ...rest);
  }
  if (first && typeof first === "object" && !("host" in first) && "port" in first) {
    return listen.call(this, { ...first, host: "127.0.0.1" }, ...args.slice(1));
  }
  return listen.apply(this, args);
};

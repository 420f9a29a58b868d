/** What counts as loopback, in one place: listening, origins and fetched documents all ask it. */

/** True for names and addresses that only this machine can reach: 127.0.0.0/8, ::1, localhost. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  if (h === "localhost") return true;
  if (h === "::1" || /^(0{0,4}:){7}0{0,3}1$/.test(h)) return true;
  const v4 = h.replace(/^::ffff:/, "");
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

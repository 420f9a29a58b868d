/**
 * Process signals of a serving gateway: SIGTERM and SIGINT drain and stop (a second one cuts the
 * drain short), SIGHUP reloads the config.
 */

/** What each signal does. */
export interface SignalHandlers {
  /** First SIGTERM/SIGINT. */
  stop(signal: string): void;
  /** A second SIGTERM/SIGINT while stopping. */
  force(signal: string): void;
  reload(): void;
}

/** Installs the handlers; returns a function that removes them. */
export function onSignals(h: SignalHandlers): () => void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) h.force(signal);
    else {
      stopping = true;
      h.stop(signal);
    }
  };
  const term = () => stop("SIGTERM");
  const int = () => stop("SIGINT");
  const hup = () => h.reload();
  process.on("SIGTERM", term);
  process.on("SIGINT", int);
  process.on("SIGHUP", hup);
  return () => {
    process.off("SIGTERM", term);
    process.off("SIGINT", int);
    process.off("SIGHUP", hup);
  };
}

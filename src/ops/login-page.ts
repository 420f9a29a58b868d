/**
 * The sign-in page shown at `/` when auth is on and the browser holds no status-page cookie.
 * The token goes in a POST body (never in a URL, where it would land in history and logs); the
 * answer is a short-lived signed cookie that opens only the status routes.
 */
import { html } from "hono/html";
import { htmlPage } from "./html-page.ts";
import { NAME } from "../version.ts";
import { STATUS_STYLE } from "./status-page.ts";

const FORM_STYLE = `
main{max-width:26rem;margin:3rem auto}label{display:block;margin:0 0 .3rem;font-weight:600}
input{font:inherit;width:100%;padding:.4rem .5rem;margin:0 0 .8rem;border:1px solid #c9ced6;
border-radius:.3rem}.problem{color:#a40e26}`;

/** Renders the sign-in form; `problem` says why the last attempt was refused. */
export function renderLoginPage(problem?: string): ReturnType<typeof html> {
  return htmlPage(
    `${NAME} status — sign in`,
    STATUS_STYLE + FORM_STYLE,
    html`
      <main>
        <h1>${NAME} status</h1>
        <p class="meta">Sign in with an admin token (<code>admin: true</code> in
          <code>gateway.auth.tokens</code>). The browser keeps a signed session cookie for 12
          hours, never the token.</p>
        ${problem ? html`<p class="problem" role="alert">${problem}</p>` : ""}
        <form method="post" action="/login">
          <label for="token">Token</label>
          <input id="token" name="token" type="password" autocomplete="current-password" required>
          <button type="submit">Sign in</button>
        </form>
      </main>
    `,
  );
}

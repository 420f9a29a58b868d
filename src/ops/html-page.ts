/**
 * The frame of every page the gateway serves an operator (the console, its sign-in form, the
 * answer to a refused button): one HTML document with the viewport set for phones and the
 * stylesheet inline, written as CSS (escaping it would break selectors such as `td>*`).
 */
import { html, raw } from "hono/html";

type Html = ReturnType<typeof html>;

/** A whole document: `title`, inline `style`, `head` extras, and `body`. */
export function htmlPage(
  title: string,
  style: string,
  body: Html | string,
  head: Html | string = "",
): Html {
  return html`
    <!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        ${head}
        <title>${title}</title>
        <style>${raw(style)}</style>
      </head>
      <body>
        ${body}
      </body>
    </html>
  `;
}

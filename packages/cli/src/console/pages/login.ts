/** The sign-in page: what a request without the session cookie or the token gets. */
import { html } from 'hono/html';
import { type Html, layout, type PageContext } from './layout.js';

/**
 * Asks for the access token. `next` is the console path to return to (already reduced to
 * a same-origin path); `why` says whether no token or a wrong one was presented.
 */
export function loginPage(ctx: PageContext, next: string, why: 'missing' | 'wrong'): Html {
  const body = html`${
    why === 'wrong'
      ? html`<div class="notice error" role="alert"><p>That token does not match this console’s: check it, or open the address the console printed when it started.</p></div>`
      : ''
  }
<p>This console needs its access token. Open the address <code>tasklane console</code> printed when it started (it ends in <code>?token=…</code>), or enter the token below: the token from <code>TASKLANE_CONSOLE_TOKEN</code> or <code>--token-file</code> when you gave one.</p>
<form method="post" action="/login" class="inline">
<input type="hidden" name="next" value="${next}">
<label for="login-token">Access token<input id="login-token" name="token" type="password" autocomplete="off" required size="40"></label>
<button type="submit">Sign in</button>
</form>`;
  return layout(ctx, { title: 'Sign in', path: '/login', body });
}

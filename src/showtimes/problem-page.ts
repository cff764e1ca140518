/**
 * A problem with a request for the programme's page, as a page: a visitor who follows a link with
 * a bad filter, or whose cinema revoked the key in its frame, reads what went wrong in the page's
 * own style rather than a JSON or XML document. It shows the problem's title and detail, escaped,
 * and asks search engines not to keep it.
 */
import type { Problem } from '../http/http-error.js';
import { html } from './html.js';
import { PAGE_STYLESHEET } from './page-assets.js';

/**
 * Its stylesheet is the page's, and it loads nothing else. Any page may frame it: it is shown in
 * a cinema's frame as the programme would be, and holds nothing to act on.
 */
export const PROBLEM_PAGE_POLICY = "default-src 'none'; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors *";

export function problemPage(problem: Problem): string {
  return html`<!doctype html>
<html lang="en" dir="ltr" class="page">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="robots" content="noindex">
<title>${problem.title}</title>
<link rel="stylesheet" href="${PAGE_STYLESHEET.href}">
</head>
<body>
<div class="width">
<main id="problem">
<h1>${problem.title}</h1>
<p class="lead">${problem.detail}</p>
</main>
</div>
</body>
</html>
`.text;
}

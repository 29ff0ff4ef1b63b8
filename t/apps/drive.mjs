// drive.mjs - a user at the MCP Apps host page, for t/e2e/e2e_apps.py.
//
// playwright-core drives Debian's Chromium (/usr/bin/chromium,
// headless): it opens the host page through nginx, waits for the view
// (tools/apps/book_room.html, in its sandboxed iframe) to be
// initialized and to have the day the host sent as the tool's input,
// picks a room and a number of people, presses Book, waits for the
// result text in the view, and takes a screenshot.  Prints one line,
// RESULT {json}: what the view showed, the iframe's sandbox attribute,
// what the host page logged, the console messages and page errors.
//
// Usage: node drive.mjs URL SCREENSHOT PROFILE_DIR
import { chromium } from 'playwright-core';

const [url, shot, profile] = process.argv.slice(2);
const out = { console: [], pageErrors: [], requests: [] };
// A fresh profile directory: --user-data-dir, as Playwright passes it.
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  viewport: { width: 640, height: 460 },
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic',
    '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
try {
  const page = await browser.newPage();
  page.on('console', (m) => out.console.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => out.pageErrors.push(String(e)));
  page.on('request', (r) => out.requests.push(r.url()));
  await page.goto(url);
  const view = page.frameLocator('#view');
  // The view is up: initialized, and the host sent book_room's input.
  await page.waitForFunction(() => window.hostLog &&
      (window.hostLog.appInfo || window.hostLog.error), null,
      { timeout: 20000 });
  await view.locator('#submit:not([disabled])').waitFor({ timeout: 20000 });
  for (let i = 0; i < 100; i++) {
    out.dayFromHost = await view.locator('#day').inputValue();
    if (out.dayFromHost === '2026-12-24')
      break;
    await page.waitForTimeout(100);
  }
  await view.locator('#room').selectOption('Borealis');
  await view.locator('#people').fill('6');
  await view.locator('#submit').click();
  await view.locator('#result', { hasText: 'Booked' })
      .waitFor({ timeout: 20000 });
  out.result = await view.locator('#result').textContent();
  out.resultClass = await view.locator('#result').getAttribute('class');
  out.sandbox = await page.locator('#view').getAttribute('sandbox');
  // The view runs in an opaque origin: it cannot reach the host's DOM.
  out.viewOrigin = await page.frames()[1].evaluate(() => {
    try {
      return [self.origin, String(window.parent.document)];
    } catch (e) {
      return [self.origin, e.name];
    }
  });
  out.host = await page.evaluate(() => window.hostLog);
  await page.screenshot({ path: shot, fullPage: true });
} catch (e) {
  out.error = String(e && e.stack || e);
} finally {
  await browser.close();
}
console.log('RESULT ' + JSON.stringify(out));

// Open built book pages in headless Debian chromium (driven by playwright-core, which never
// downloads a browser of its own) and report what a reader would see, as JSON on stdout:
// per page, whether it loaded, its images and their rendered sizes, error outputs, and math.
// Usage: node check_pages.mjs <playwright-core dir> <page.html>...
import { createRequire } from "module";
const require = createRequire(import.meta.url);
const [pwDir, ...pages] = process.argv.slice(2);
const { chromium } = require(pwDir);

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const out = [];
for (const file of pages) {
  const page = await browser.newPage();
  const external = [];
  page.on("request", (r) => { if (!r.url().startsWith("file:") && !r.url().startsWith("data:")) external.push(r.url()); });
  let loaded = true, error = null;
  try {
    await page.goto("file://" + file, { waitUntil: "load", timeout: 60000 });
    await page.waitForTimeout(1500); // let MathJax typeset
  } catch (e) { loaded = false; error = String(e); }
  const info = loaded ? await page.evaluate(() => ({
    title: document.title,
    images: [...document.querySelectorAll("main img, article img, .bd-article img")].map((i) => ({
      src: i.getAttribute("src"), complete: i.complete, width: i.naturalWidth, height: i.naturalHeight })),
    errorOutputs: document.querySelectorAll(".output.error, .output.traceback, .papermill-error-cell-tag, div.admonition.error").length,
    tracebackText: /Traceback \(most recent call last\)|PapermillExecutionError/.test(document.body.innerText),
    mathSource: document.querySelectorAll(".math").length,
    mathRendered: document.querySelectorAll("mjx-container").length,
    text: document.body.innerText.length,
    // verdict and status badges: rendered as elements with visible text and a box of their own
    badges: [...document.querySelectorAll(".claim-badge")].map((b) => ({
      text: b.innerText.trim(), width: b.getBoundingClientRect().width,
      color: getComputedStyle(b).color, background: getComputedStyle(b).backgroundColor })),
  })) : {};
  out.push({ file, loaded, error, external, ...info });
  await page.close();
}
await browser.close();
console.log(JSON.stringify(out));

/**
 * The local memory console (#37) in a real browser: Debian's chromium driven by playwright-core
 * (executablePath, no browser download) against a real daemon on a fixture workspace; plus the
 * security checks over plain HTTP. Screenshots of each page go to .ci/console-screens/.
 */
import { existsSync, mkdirSync, statSync } from "node:fs";
import { request } from "node:http";
import { networkInterfaces } from "node:os";
import { connect } from "node:net";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { chromium } from "playwright-core";
import { runCli } from "./helpers/cli.js";
import { daemonsPerTest } from "./helpers/daemon.js";
import { BIN, ccEvent, runTimed } from "./helpers/hooks.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

const CHROMIUM = process.env.CORTEXD_CHROMIUM ?? "/usr/bin/chromium";
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium)
  console.warn(
    `console browser test skipped: no chromium at ${CHROMIUM} (apt-get install chromium; .ci/run installs it)`,
  );
const SHOTS = resolve(import.meta.dirname, "../.ci/console-screens");
const { daemonOn } = daemonsPerTest();

function http(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  method = "GET",
  body?: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((done, fail) => {
    const req = request(
      { host: "127.0.0.1", port, path, method, headers: { host: `127.0.0.1:${port}`, ...headers } },
      (res) => {
        let data = "";
        res.on("data", (c) => (data += c));
        res.on("end", () => done({ status: res.statusCode ?? 0, headers: res.headers, body: data }));
      },
    );
    req.on("error", fail);
    req.end(body);
  });
}

const today = new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

async function fixtureDaemon() {
  const root = tempDir();
  writeFiles(root, {
    [`memory/${today}.md`]: `# ${today}\n\n- The staging database moved to the eu-west-3 region.\n- Deploys freeze on Fridays after 3pm.\n- <script>alert(1)</script> is how the XSS note looks.\n`,
    "MEMORY.md": "# Memory\n\n- The deploy key rotation is every 90 days.\n",
    // Older days for the Overview's plot of the index over time.
    [`memory/${daysAgo(5)}.md`]: `# ${daysAgo(5)}\n\n- The build cache lives on the second runner.\n`,
    [`memory/${daysAgo(12)}.md`]: `# ${daysAgo(12)}\n\n- Lunch is at noon on Tuesdays.\n\n- The printer on floor 2 jams.\n`,
  });
  const d = await daemonOn(root);
  const opened = await d.call("console.open", {});
  return { d, root, opened, port: opened.port, token: new URL(opened.url).searchParams.get("token")! };
}

describe("console: security over HTTP", () => {
  it("401 without the token, 403 for a wrong Host or Origin, refuses a cross-site POST, listens on loopback only", async () => {
    const { d, opened, port, token } = await fixtureDaemon();
    expect(statSync(opened.tokenFile).mode & 0o777).toBe(0o600);
    expect((await http(port, "/")).status).toBe(401);
    expect((await http(port, "/api/overview")).status).toBe(401);
    expect((await http(port, "/api/overview", { cookie: `cortexd_console_${port}=wrong` })).status).toBe(401);
    const cookie = `cortexd_console_${port}=${token}`;
    const ok = await http(port, "/api/overview", { cookie });
    expect(ok.status).toBe(200);
    expect(String(ok.headers["content-security-policy"])).toContain("script-src 'self'");
    // DNS rebinding: the attacker's name in Host; a foreign Origin.
    expect((await http(port, "/api/overview", { cookie, host: `evil.example:${port}` })).status).toBe(403);
    expect((await http(port, "/api/overview", { cookie, origin: "http://evil.example" })).status).toBe(403);
    // The token in the URL becomes an HttpOnly SameSite=Strict cookie.
    const first = await http(port, `/?token=${token}`);
    expect(first.status).toBe(303);
    expect(String(first.headers["set-cookie"])).toMatch(/HttpOnly; SameSite=Strict/);
    // The write: cross-site (foreign Origin), no CSRF token, or no confirmation → refused; nothing applied.
    const csrf = (JSON.parse((await http(port, "/api/session", { cookie })).body) as { csrf: string }).csrf;
    const body = JSON.stringify({ confirm: true });
    const json = { "content-type": "application/json" };
    expect(
      (
        await http(
          port,
          "/api/promote",
          { ...json, cookie, origin: "http://evil.example", "x-cortexd-csrf": csrf },
          "POST",
          body,
        )
      ).status,
    ).toBe(403);
    expect(
      (await http(port, "/api/promote", { ...json, cookie, origin: `http://127.0.0.1:${port}` }, "POST", body)).status,
    ).toBe(403);
    expect((await http(port, "/api/promote", { ...json, cookie, "x-cortexd-csrf": csrf }, "POST", body)).status).toBe(
      403,
    );
    expect(
      (
        await http(
          port,
          "/api/promote",
          { ...json, cookie, origin: `http://127.0.0.1:${port}`, "x-cortexd-csrf": csrf },
          "POST",
          "{}",
        )
      ).status,
    ).toBe(400);
    // Not reachable on a non-loopback address of this machine.
    const external = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && !a.internal && a.family === "IPv4")?.address;
    if (external) {
      const err = await new Promise<string>((done) => {
        const s = connect({ host: external, port }, () => {
          s.destroy();
          done("connected");
        });
        s.on("error", (e: NodeJS.ErrnoException) => done(e.code ?? "error"));
      });
      expect(err).toBe("ECONNREFUSED");
    }
    // `cortexd ui` (no display): the same console's URL with this start's token.
    const ui = runCli(["ui", "--no-open"], d.env);
    expect(ui.code, ui.stderr).toBe(0);
    expect(ui.stdout).toContain(opened.url);
    await d.stop();
    expect(existsSync(opened.tokenFile)).toBe(false);
    const down = runCli(["ui", "--no-open"], d.env);
    expect(down.code).not.toBe(0);
    expect(down.stderr).toMatch(/not running.*cortexd start/);
  }, 60_000);
});

describe.skipIf(!haveChromium)("console in a real browser (chromium)", () => {
  it("loads each page: overview, timeline, search with stage bars, recall preview and its empty decision, audit of a real hook, promotion after confirmation", async () => {
    const { d, root, opened } = await fixtureDaemon();
    // A real hook process injects memories (recorded in the audit log) — three different prompts
    // recalling the same entry also make it a promotion candidate.
    for (const [i, prompt] of [
      "staging database region?",
      "where is the staging database now",
      "which region hosts staging db",
    ].entries()) {
      const hook = await runTimed(
        process.execPath,
        [BIN, "hook", "UserPromptSubmit", "--timeout-ms", "5000"],
        d.env,
        JSON.stringify(ccEvent("user-prompt-submit", { prompt, cwd: root, session_id: `cc-console-${i}` })),
      );
      expect(hook.stdout).toContain("eu-west-3");
    }
    mkdirSync(SHOTS, { recursive: true });
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
    try {
      const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      page.on("dialog", (dlg) => {
        errors.push(`dialog: ${dlg.message()}`);
        void dlg.dismiss();
      });
      const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
      const ready = (name: string) => page.waitForSelector(`#main[data-page="${name}"][aria-busy="false"]`);

      await page.goto(opened.url);
      await ready("overview");
      expect(page.url()).not.toContain("token="); // moved into the cookie
      expect(await page.textContent("#workspaces")).toContain(root);
      expect(await page.locator("#latency .card").count()).toBe(4);
      // The index over time: a young index is plotted by day, from its oldest memory (12 days ago) to today.
      expect(await page.locator("#history svg .bar").count()).toBe(13);
      expect(await page.locator(`#history .bar[data-period="${daysAgo(12)}"] rect.k-daily`).count()).toBe(1);
      expect(await page.locator(`#history .bar[data-period="${daysAgo(5)}"] rect.k-daily`).count()).toBe(1);
      expect(await page.locator(`#history .bar[data-period="${daysAgo(8)}"] rect`).count()).toBe(0);
      expect(await page.textContent(`#history .bar[data-period="${today}"] title`)).toMatch(
        /2 files, \d+ chunks \(daily logs 1 files, \d+ chunks; MEMORY\.md \/ USER\.md 1 files/,
      );
      expect(await page.textContent("#history .legend")).toContain("4 files");
      // The page's own trace (DOM types are not in the test's lib): the first-view mark, and what was fetched.
      const trace = (await page.evaluate(`({
        firstView: performance.getEntriesByName("cortexd:first-view").map((m) => Math.round(m.startTime)),
        fetched: performance.getEntriesByType("resource").map((r) => new URL(r.name).pathname),
      })`)) as { firstView: number[]; fetched: string[] };
      expect(trace.firstView).toHaveLength(1);
      // The overview's data is fetched once (the page and the workspace menu share it), with the modules, not after them.
      expect(trace.fetched.filter((p) => p === "/api/overview")).toHaveLength(1);
      console.log(
        `console first view (overview, fixture): ${trace.firstView[0]} ms (figures: npm run bench -- console)`,
      );
      await shot("overview");

      await page.goto(`${new URL(opened.url).origin}/#/timeline?day=${today}`);
      await ready("timeline");
      expect(await page.textContent("#day-entries")).toContain("eu-west-3");
      // Memory text is text: the script in the note is shown, never run.
      expect(await page.textContent("#day-entries")).toContain("<script>alert(1)</script>");
      await shot("timeline");

      await page.click('a[data-page="search"]');
      await page.fill('input[name="q"]', "staging database region");
      await page.press('input[name="q"]', "Enter");
      await page.waitForSelector("#hits .hit");
      await ready("search");
      expect(await page.locator("#hits .hit .stages .fill").count()).toBeGreaterThan(0);
      expect(await page.textContent("#hits")).toContain(`memory/${today}.md`);
      await page.click("#hits .hit details summary");
      await page.waitForSelector("#hits .hit details .lines .ln.cited");
      expect(await page.textContent("#hits .hit details .lines")).toContain("eu-west-3");
      await shot("search");

      await page.click('a[data-page="recall"]');
      await ready("recall");
      await page.fill('input[name="q"]', "what region is the staging database in?");
      await page.press('input[name="q"]', "Enter");
      await page.waitForSelector("#recall-block");
      expect(await page.textContent("#recall-block")).toContain("eu-west-3");
      await shot("recall");
      await page.fill('input[name="q"]', "recommend a good sourdough hydration for rye");
      await page.press('input[name="q"]', "Enter");
      await page.waitForSelector("#recall-empty");
      expect(await page.textContent("#recall-empty")).toMatch(/Nothing injected: \S/);
      await shot("recall-empty");

      await page.click('a[data-page="audit"]');
      await ready("audit");
      const audit = await page.textContent("#audit-entries");
      expect(audit).toContain("claude-code");
      expect(audit).toContain("cc-console-0");
      await page.click(`#audit-entries a.cite[href*="${encodeURIComponent(`memory/${today}.md`)}"] >> nth=0`);
      await ready("memory");
      expect(await page.textContent("#memory .ln.cited")).toContain("eu-west-3");
      await page.goBack();
      await ready("audit");
      await shot("audit");

      await page.click('a[data-page="consolidation"]');
      await ready("consolidation");
      await page.waitForSelector("#promote-ask");
      await shot("consolidation");
      const memoryBefore = (await d.call("memory.get", { path: "MEMORY.md" })).text;
      await page.click("#promote-ask");
      await page.waitForSelector("#promote-panel");
      // Asked, not yet applied.
      expect((await d.call("memory.get", { path: "MEMORY.md" })).text).toBe(memoryBefore);
      await shot("consolidation-confirm");
      await page.click("#promote-confirm");
      await page.waitForSelector("#promote-done");
      expect((await d.call("memory.get", { path: "MEMORY.md" })).text).toContain("eu-west-3");
      await shot("consolidation-applied");
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 120_000);
});

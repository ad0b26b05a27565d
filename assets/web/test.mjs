// The web demo in a real browser: builds it (or takes a built folder), serves it on 127.0.0.1,
// drives headless Chromium through playwright-core and checks what a person would see.
//
//   npm ci --prefix assets/web && node assets/web/test.mjs [OUT_DIR]
//
// Needs Debian's chromium at /usr/bin/chromium (playwright-core never downloads a browser), and
// the native binary (`cargo build --release`, or QUADSTRESS_BIN) to compare the page's particles.
// Without OUT_DIR it runs assets/web/build.sh into a temporary folder first.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PNG } from "pngjs";
import { launchChromium } from "./chromium.mjs";
import { serve } from "./serve.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
// The demo's world is 3072x2304; in a 1024x768 page one pixel is three world units.
const SCALE = 1 / 3;
const QUAD_EDGE = [40, 110, 255];
const HIGHLIGHT = [255, 0, 255];
const TIMEOUT_MS = 90_000;
/** The native binary the page's headless run is compared with (built by `cargo build --release`). */
const NATIVE = process.env.QUADSTRESS_BIN ?? join(HERE, "..", "..", "target", "release", "quadstress");

let passed = 0;
let failed = 0;
function check(name, ok, detail = "") {
    if (ok) {
        passed++;
        console.log(`ok - ${name}`);
    } else {
        failed++;
        console.log(`not ok - ${name}${detail ? `: ${detail}` : ""}`);
    }
}

/** The number after `key` in a report line, as in src/tests/window.rs. */
function field(line, key) {
    const at = line.indexOf(key);
    if (at < 0) throw new Error(`no ${JSON.stringify(key)} in ${JSON.stringify(line)}`);
    return Number(/^\s*(\d+)/.exec(line.slice(at + key.length))[1]);
}

/** Every `<number> ms` figure in a line. */
function timings(line) {
    return [...line.matchAll(/(\d+(?:\.\d+)?) ms\b/g)].map((m) => m[1]);
}

class Shot {
    constructor(buffer) {
        const png = PNG.sync.read(buffer);
        this.width = png.width;
        this.height = png.height;
        this.data = png.data;
    }
    at(x, y) {
        const i = (y * this.width + x) * 4;
        return [this.data[i], this.data[i + 1], this.data[i + 2]];
    }
    is(x, y, rgb) {
        return this.at(x, y).every((v, i) => Math.abs(v - rgb[i]) <= 2);
    }
    same(other, x, y) {
        const [a, b] = [this.at(x, y), other.at(x, y)];
        return a.every((v, i) => v === b[i]);
    }
}

/** Share of the quad's left and right edges drawn at screen rectangle [x0, x1] x [y0, y1]. */
function quadEdgeShare(shot, x0, y0, x1, y1) {
    let on = 0;
    let all = 0;
    for (let y = y0 + 5; y < y1 - 5; y++) {
        // The 3-pixel line straddles the pixel grid; accept it within a pixel of the edge.
        const near = (from, to) => {
            for (let x = from; x <= to; x++) if (shot.is(x, y, QUAD_EDGE)) return true;
            return false;
        };
        on += near(x0 - 1, x0 + 1) + near(x1 - 3, x1);
        all += 2;
    }
    return on / all;
}

const worldToScreen = (v) => Math.trunc(v * SCALE);

/** A page of the demo with everything it says and does recorded. */
async function open(context, url) {
    const page = await context.newPage();
    const log = { lines: [], errors: [], pageErrors: [], failedRequests: [] };
    page.on("console", (m) => {
        if (m.type() === "log") log.lines.push(m.text());
        if (m.type() === "error") log.errors.push(m.text());
    });
    page.on("pageerror", (e) => log.pageErrors.push(String(e)));
    page.on("requestfailed", (r) => log.failedRequests.push(r.url()));
    page.on("response", (r) => {
        if (r.status() >= 400) log.failedRequests.push(`${r.status()} ${r.url()}`);
    });
    // Registered before the page's own scripts: on the window, after the canvas's handlers, so
    // it sees whether they cancelled the browser's default action.
    await page.addInitScript(() => {
        window.__mouseDefaults = { contextmenu: [], middleDown: [], auxclick: [] };
        window.addEventListener("contextmenu", (e) => __mouseDefaults.contextmenu.push(e.defaultPrevented));
        window.addEventListener("mousedown", (e) => {
            if (e.button === 1) __mouseDefaults.middleDown.push(e.defaultPrevented);
        });
        window.addEventListener("auxclick", (e) => __mouseDefaults.auxclick.push(e.defaultPrevented));
    });
    await page.goto(url);
    return { page, log };
}

async function waitForLine(log, prefix, after = 0) {
    const start = Date.now();
    for (;;) {
        const line = log.lines.slice(after).find((l) => l.startsWith(prefix));
        if (line !== undefined) return line;
        if (log.pageErrors.length > 0) throw new Error(`page error: ${log.pageErrors[0]}`);
        if (Date.now() - start > TIMEOUT_MS) {
            throw new Error(`no console line starting ${JSON.stringify(prefix)}; got:\n${log.lines.join("\n")}`);
        }
        await new Promise((r) => setTimeout(r, 50));
    }
}

async function main() {
    const started = Date.now();
    let dir = process.argv[2];
    let built = null;
    if (!dir) {
        built = dir = mkdtempSync(join(tmpdir(), "quadstress-web-"));
        execFileSync(join(HERE, "build.sh"), [dir], { stdio: "inherit" });
    }
    const server = await serve(dir, 0);
    const base = `http://127.0.0.1:${server.address().port}/`;
    const browserStarted = Date.now();
    const browser = await launchChromium();
    const context = browser.context;
    try {
        await scriptedRun(context, base);
        await headlessInThePage(context, base);
        await refusedFlags(context, base);
    } finally {
        await browser.close();
        server.close();
        if (built) rmSync(built, { recursive: true, force: true });
    }
    const seconds = (t) => ((Date.now() - t) / 1000).toFixed(1);
    console.log(`browser part: ${seconds(browserStarted)} s (whole test ${seconds(started)} s)`);
}

/** The issue's scenario: spawn, right-click the quad, look at the console and the pixels. */
async function scriptedRun(context, base) {
    const { page, log } = await open(
        context,
        `${base}?spawn=6000&gravity=off&seed=5&frames=40&right-click=2100,1500`,
    );

    // The scripted right-click on frame 40, reported in the console as on the desktop.
    const scripted = await waitForLine(log, "right-click:");
    const count = field(scripted, "particles touching:");
    check("the scripted right-click finds particles", count > 0, scripted);
    check(
        "its count equals the brute-force count",
        count === field(scripted, "brute force:") && scripted.includes("(agrees)"),
        scripted,
    );
    const renderer = await waitForLine(log, "renderer:");
    check("WebGL1 draws through the canvas", renderer.startsWith("renderer: canvas ("), renderer);
    const summary = await waitForLine(log, "frame_time.median:");
    check(
        "the canvas has the keyboard focus on load",
        await page.evaluate(() => document.activeElement?.id === "glcanvas"),
    );

    // Space pauses (through the focus the page gave the canvas), so the screenshots hold still.
    await page.keyboard.press("Space");
    await page.waitForTimeout(500);

    // A real right-click away from the quad: the quad moves there and is tested.
    const [cx, cy] = [900, 1350];
    const before = log.lines.length;
    await page.mouse.click(worldToScreen(cx), worldToScreen(cy), { button: "right" });
    const clicked = await waitForLine(log, "right-click:", before);
    const hits = field(clicked, "particles touching:");
    check(
        "a mouse right-click reports the brute-force count",
        hits > 0 && hits === field(clicked, "brute force:"),
        clicked,
    );
    await page.waitForTimeout(300);
    const shot = new Shot(await page.screenshot());
    await page.waitForTimeout(300);
    const still = new Shot(await page.screenshot());
    check("the screenshot is the page's size", shot.width === 1024 && shot.height === 768);

    // The quad is centred on the click: world [600, 1125] - [1200, 1575].
    const [x0, y0] = [worldToScreen(cx - 300), worldToScreen(cy - 225)];
    const [x1, y1] = [worldToScreen(cx + 300), worldToScreen(cy + 225)];
    const share = quadEdgeShare(shot, x0, y0, x1, y1);
    check("the blue quad is drawn where it was clicked", share >= 0.9, `edge at ${(share * 100).toFixed(0)}%`);
    const oldShare = quadEdgeShare(shot, worldToScreen(1800), worldToScreen(1275), worldToScreen(2400), worldToScreen(1725));
    check("and no longer where it was", oldShare < 0.2, `old edge at ${(oldShare * 100).toFixed(0)}%`);

    // Highlighted hits: inside the quad (give or take the highlight's border), none elsewhere.
    let inside = 0;
    let outside = 0;
    for (let y = 0; y < shot.height; y++) {
        for (let x = 0; x < shot.width; x++) {
            if (!shot.is(x, y, HIGHLIGHT)) continue;
            if (x + 4 >= x0 && x <= x1 + 4 && y + 4 >= y0 && y <= y1 + 4) inside++;
            else outside++;
        }
    }
    check("the hits are highlighted", inside >= hits, `${inside} highlight pixels for ${hits} particles`);
    check("no highlight away from the quad", outside === 0, `${outside} pixels`);

    // Paused: the world below the HUD (whose frame graph moves on) is the same a moment later.
    let moved = 0;
    for (let y = 310; y < 740; y++) for (let x = 0; x < 1024; x++) moved += !shot.same(still, x, y);
    check("Space paused the demo (keys reach the canvas)", moved === 0, `${moved} pixels changed`);

    // Node outlines: O shows the leaves' only, a second O hides them; what disappears includes
    // the root's split line down the middle (world x = 1536, screen x = 512) and other split
    // lines.
    await page.keyboard.press("KeyO");
    await page.waitForTimeout(300);
    await page.keyboard.press("KeyO");
    await page.waitForTimeout(500);
    const bare = new Shot(await page.screenshot());
    const rows = 740 - 260;
    const lineAt = (x) => {
        let n = 0;
        for (let y = 260; y < 740; y++) n += !bare.same(shot, x, y) && !shot.is(x, y, HIGHLIGHT);
        return n;
    };
    const centre = Math.max(lineAt(511), lineAt(512), lineAt(513));
    check("the root's split line is drawn", centre >= rows * 0.8, `${centre} of ${rows} rows`);
    let columns = 0;
    for (let x = 0; x < 1024; x++) columns += lineAt(x) >= 100;
    check("deeper split lines are drawn", columns >= 8, `${columns} columns with a long line`);

    // Esc in a page closes the help, then the controls panel (a page cannot be closed).
    const changed = (a, b, [x0, y0, x1, y1]) => {
        let n = 0;
        for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) n += !a.same(b, x, y);
        return n;
    };
    // Right of the clicked quad, whose shading goes when its report times out, and left of
    // the panel: what the help covers.
    const middle = [460, 200, 700, 560];
    const panelArea = [730, 150, 1015, 470];
    // A loaded machine can take a while to draw the next frame: screenshots until it shows.
    const shotUntil = async (ok) => {
        const end = Date.now() + 5000;
        let shot = new Shot(await page.screenshot());
        while (!ok(shot) && Date.now() < end) {
            await page.waitForTimeout(200);
            shot = new Shot(await page.screenshot());
        }
        return shot;
    };
    await page.keyboard.press("KeyH");
    const help = await shotUntil((s) => changed(s, bare, middle) > 20000);
    check("H opens the help", changed(help, bare, middle) > 20000, `${changed(help, bare, middle)} pixels`);
    await page.keyboard.press("Escape");
    const helpClosed = await shotUntil((s) => changed(s, bare, middle) === 0);
    check("Esc closes the help", changed(helpClosed, bare, middle) === 0, `${changed(helpClosed, bare, middle)} pixels differ`);
    check("and leaves the panel open", changed(helpClosed, bare, panelArea) === 0);
    await page.keyboard.press("Escape");
    const panelClosed = await shotUntil((s) => changed(s, bare, panelArea) > 10000);
    check(
        "a second Esc closes the controls panel",
        changed(panelClosed, bare, panelArea) > 10000,
        `${changed(panelClosed, bare, panelArea)} pixels changed`,
    );

    // The browser's own mouse actions stay off the canvas.
    await page.mouse.click(worldToScreen(cx), worldToScreen(cy), { button: "middle" });
    const defaults = await page.evaluate(() => window.__mouseDefaults);
    check(
        "the right-click's context menu was cancelled",
        defaults.contextmenu.length > 0 && defaults.contextmenu.every((d) => d),
        JSON.stringify(defaults.contextmenu),
    );
    check(
        "the middle click was cancelled",
        defaults.middleDown.length > 0 && defaults.middleDown.every((d) => d) && defaults.auxclick.every((d) => d),
        JSON.stringify(defaults),
    );

    // The clock: performance.now(), not whole milliseconds.
    const fractional = [scripted, clicked, summary]
        .flatMap(timings)
        .filter((t) => /\.\d*[1-9]/.test(t));
    check(
        "two console timings are not whole milliseconds",
        fractional.length >= 2,
        `${[scripted, clicked, summary].flatMap(timings).join(", ")}`,
    );

    check("no page errors", log.pageErrors.length === 0, log.pageErrors.join("; "));
    check("no console errors", log.errors.length === 0, log.errors.join("; "));
    check("no failed requests", log.failedRequests.length === 0, log.failedRequests.join("; "));
    await page.close();
}

/** The headless stress mode runs in the page, times its phases as on the desktop, and ends with
 * the same particles, bit for bit, as the native binary on one thread (the page's simulation
 * runs on one thread too). */
async function headlessInThePage(context, base) {
    const scene = [["particles", 3000], ["frames", 120], ["gravity", "on"], ["coverage", 0.5], ["seed", 3]];
    const flags = scene.flatMap(([k, v]) => [`--${k}`, String(v)]);
    const { page, log } = await open(context, `${base}?headless&${scene.map(([k, v]) => `${k}=${v}`).join("&")}`);
    const line = await waitForLine(log, "pair_search.median:");
    const ms = Number(timings(line)[0]);
    check("the headless mode times the pair search in the page", ms > 0 && ms < 1000, line);
    const hashLine = await waitForLine(log, "state_hash:");
    check("its output is the desktop's", log.lines.includes("particles: 3000 count"), log.lines.join("\n"));
    const native = execFileSync(NATIVE, ["--headless", ...flags, "--threads", "1"], { encoding: "utf8" })
        .split("\n")
        .find((l) => l.startsWith("state_hash:"));
    check("the page's particles are the native binary's, bit for bit", hashLine === native, `${hashLine} / ${native}`);
    check("no page errors in the headless mode", log.pageErrors.length === 0, log.pageErrors.join("; "));
    await page.close();
}

/** A bad URL parameter is refused in the console, like a bad flag on the command line. */
async function refusedFlags(context, base) {
    const { page, log } = await open(context, `${base}?depth=99&frames=2`);
    const start = Date.now();
    while (log.errors.length === 0 && Date.now() - start < TIMEOUT_MS) {
        await new Promise((r) => setTimeout(r, 50));
    }
    check("a bad parameter is refused with a message", log.errors.some((e) => e.includes("depth")), log.errors.join("; "));
    check("without a page error", log.pageErrors.length === 0, log.pageErrors.join("; "));
    await page.close();

    // A visitor sees the message on the page, not a blank canvas.
    const bad = await open(context, `${base}?spawn=abc`);
    const box = bad.page.locator("#errors");
    await box.waitFor({ state: "visible", timeout: TIMEOUT_MS });
    const shown = await box.textContent();
    check(
        "a bad parameter's message shows on the page",
        shown.includes("invalid value 'abc'") && shown.includes("--spawn"),
        shown,
    );
    const { width, height } = (await box.boundingBox()) ?? { width: 0, height: 0 };
    check("in a box a person can read", width > 300 && height > 30, `${width}x${height}`);
    await bad.page.close();
}

try {
    await main();
} catch (e) {
    failed++;
    console.log(`not ok - ${e.stack ?? e}`);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);

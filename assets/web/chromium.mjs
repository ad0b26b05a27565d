// Headless Debian Chromium through playwright-core, as the browser test and page.mjs start it:
// the machine's /usr/bin/chromium (playwright-core never downloads a browser), a fresh profile,
// no background traffic, a 1024x768 page like the desktop window.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

/** A browser context; `close()` also removes its profile folder. */
export async function launchChromium() {
    const profile = mkdtempSync(join(tmpdir(), "quadstress-chromium-"));
    const context = await chromium.launchPersistentContext(profile, {
        executablePath: "/usr/bin/chromium",
        headless: true,
        args: [
            "--no-sandbox",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-gpu",
            "--disable-quic",
        ],
        viewport: { width: 1024, height: 768 },
    });
    return {
        context,
        async close() {
            await context.close();
            rmSync(profile, { recursive: true, force: true });
        },
    };
}

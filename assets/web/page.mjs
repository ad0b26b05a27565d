// Opens the built page with URL parameters in headless Chromium and prints its console until a
// line starts with UNTIL (by default the headless mode's last line), e.g. the headless mode in
// the browser, to compare with the same flags on the desktop:
//   node assets/web/page.mjs OUT_DIR '?headless&particles=10000&frames=300'
//   cargo run --release -- --headless --particles 10000 --frames 300
import { launchChromium } from "./chromium.mjs";
import { serve } from "./serve.mjs";

const [dir, query = "", until = "state_hash:"] = process.argv.slice(2);
if (!dir) {
    console.error("usage: node assets/web/page.mjs OUT_DIR [?PARAMETERS] [UNTIL]");
    process.exit(2);
}
const server = await serve(dir, 0);
const browser = await launchChromium();
let status = 0;
try {
    const page = await browser.context.newPage();
    const done = new Promise((resolve, reject) => {
        page.on("console", (m) => {
            console.log(m.text());
            if (m.text().startsWith(until)) resolve();
        });
        page.on("pageerror", (e) => reject(e));
    });
    await page.goto(`http://127.0.0.1:${server.address().port}/${query}`);
    await done;
} catch (e) {
    console.error(`page error: ${e}`);
    status = 1;
} finally {
    await browser.close();
    server.close();
}
process.exit(status);

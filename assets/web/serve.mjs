// Serves a built web folder (assets/web/build.sh OUT_DIR) on 127.0.0.1 only:
//   node assets/web/serve.mjs OUT_DIR [PORT]      (PORT 8000 by default, 0 for any free one)
// The browser test imports serve() from here, so the command it documents is the one tested.
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";

const TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    // WebAssembly.compileStreaming refuses any other type.
    ".wasm": "application/wasm",
    ".png": "image/png",
};

/** Serves `dir` on 127.0.0.1:`port`; resolves to the server once it listens. */
export function serve(dir, port = 8000) {
    const root = resolve(dir);
    const server = createServer(async (req, res) => {
        const path = decodeURIComponent(new URL(req.url, "http://127.0.0.1").pathname);
        const file = resolve(join(root, path.endsWith("/") ? path + "index.html" : path));
        if (file !== root && !file.startsWith(root + sep)) {
            res.writeHead(403).end();
            return;
        }
        try {
            const body = await readFile(file);
            res.writeHead(200, {
                "Content-Type": TYPES[extname(file)] ?? "application/octet-stream",
                "Cache-Control": "no-store",
                // Cross-origin isolation: browsers then give performance.now() microsecond
                // resolution (5 us in Chromium) instead of 100 us. The page loads nothing from
                // other origins, so isolating it costs nothing.
                "Cross-Origin-Opener-Policy": "same-origin",
                "Cross-Origin-Embedder-Policy": "require-corp",
            });
            res.end(body);
        } catch {
            res.writeHead(404).end();
        }
    });
    return new Promise((ok, fail) => {
        server.once("error", fail);
        server.listen(port, "127.0.0.1", () => ok(server));
    });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
    const [dir, port] = process.argv.slice(2);
    if (!dir) {
        console.error("usage: node assets/web/serve.mjs OUT_DIR [PORT]");
        process.exit(2);
    }
    const server = await serve(dir, port === undefined ? 8000 : Number(port));
    console.log(`serving ${resolve(dir)} at http://127.0.0.1:${server.address().port}/ (Ctrl-C stops)`);
}

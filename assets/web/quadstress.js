// The page's side of the quadstress demo, as a miniquad plugin: loaded after miniquad's gl.js
// and before load(). It gives the demo a sub-millisecond clock, console output, and the page's
// URL parameters as its command-line flags; and it keeps the browser's own mouse actions off
// the canvas. The Rust side is src/demo/platform.rs.
"use strict";

(function () {
    const canvas = document.getElementById("glcanvas");

    // A right-click tests the blue quad and a middle-drag moves it: the browser's context menu,
    // middle-click autoscroll and middle-click paste would get in the way.
    canvas.addEventListener("contextmenu", function (event) {
        event.preventDefault();
    });
    canvas.addEventListener("mousedown", function (event) {
        if (event.button === 1) {
            event.preventDefault();
        }
    });
    canvas.addEventListener("auxclick", function (event) {
        event.preventDefault();
    });

    // `?spawn=6000&frames=60&right-click=2100,1500` becomes
    // `--spawn 6000 --frames 60 --right-click 2100,1500`; a parameter with no value is a switch.
    // NUL-separated UTF-8, the form src/demo/platform.rs splits.
    function scriptArgs() {
        const args = [];
        for (const [key, value] of new URLSearchParams(window.location.search)) {
            args.push("--" + key);
            if (value !== "") {
                args.push(value);
            }
        }
        return new TextEncoder().encode(args.join("\0"));
    }
    const argBytes = scriptArgs();

    // The demo's errors (a refused URL parameter, a refused start) on the page itself: a
    // visitor sees no console, only a blank page otherwise.
    function showError(line) {
        const box = document.getElementById("errors");
        if (box) {
            box.textContent += (box.textContent ? "\n" : "") + line;
            box.hidden = false;
        }
    }

    function text(ptr, len) {
        return new TextDecoder().decode(new Uint8Array(wasm_memory.buffer, ptr, len));
    }

    miniquad_add_plugin({
        name: "quadstress",
        // Matches quadstress_crate_version() in src/demo/platform.rs.
        version: 1,
        register_plugin: function (importObject) {
            // miniquad's clock on the web is Date.now(), whole milliseconds, so every timing
            // the demo shows would read 0 or 1 ms. performance.now() is monotonic and finer.
            importObject.env.now = function () {
                return performance.now() / 1000.0;
            };
            importObject.env.quadstress_console = function (ptr, len, error) {
                const line = text(ptr, len);
                if (error) {
                    console.error(line);
                    showError(line);
                } else {
                    console.log(line);
                }
            };
            importObject.env.quadstress_args_len = function () {
                return argBytes.length;
            };
            importObject.env.quadstress_args_copy = function (ptr, len) {
                new Uint8Array(wasm_memory.buffer, ptr, len).set(argBytes.subarray(0, len));
            };
        },
        on_init: function () {
            // Keys work from the start, without a click first.
            canvas.focus();
        },
    });
})();

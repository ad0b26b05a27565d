//! What differs between the desktop and a web page, in one place: where the demo's flags come
//! from, where its console lines go, its clock, and how it ends.
//!
//! On the web (`wasm32`) the page's script `assets/web/quadstress.js` supplies the functions
//! this module imports, beside miniquad's own `gl.js`.

use super::cli::Args;

/// The demo's flags: the command line on the desktop. In a web page, the page's URL parameters
/// read as flags, `?spawn=6000&frames=60&right-click=2100,1500` as
/// `--spawn 6000 --frames 60 --right-click 2100,1500` (a parameter with no value is a switch).
///
/// `None` when the flags are refused on the web; the message is already in the console (on the
/// desktop clap prints it and exits).
pub fn script_args() -> Option<Args> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        use clap::Parser;
        Some(Args::parse())
    }
    #[cfg(target_arch = "wasm32")]
    {
        web::script_args()
    }
}

/// Seconds on a monotonic clock with sub-millisecond resolution (in a browser,
/// `performance.now()`, which browsers round to a few microseconds or to 0.1 ms).
pub fn now_seconds() -> f64 {
    #[cfg(not(target_arch = "wasm32"))]
    {
        use std::sync::OnceLock;
        use std::time::Instant;
        static START: OnceLock<Instant> = OnceLock::new();
        START.get_or_init(Instant::now).elapsed().as_secs_f64()
    }
    #[cfg(target_arch = "wasm32")]
    {
        // The page's plugin replaces miniquad's clock with `performance.now()`.
        macroquad::miniquad::date::now()
    }
}

/// Frames per second the window is held to: with no vsync (as under Xvfb) an idle or paused
/// demo would otherwise redraw as fast as it can and keep a core busy.
pub const MAX_FPS: f64 = 60.0;

/// Sleeps out the rest of a frame that began at `frame_start` (`now_seconds`), so that no
/// frame is shorter than `1 / MAX_FPS`, and returns the seconds slept. In a page the browser
/// paces the frames (and this returns 0).
pub fn pace(frame_start: f64) -> f64 {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let before = now_seconds();
        let left = 1.0 / MAX_FPS - (before - frame_start);
        if left > 0.0 {
            std::thread::sleep(std::time::Duration::from_secs_f64(left));
            return now_seconds() - before;
        }
        0.0
    }
    #[cfg(target_arch = "wasm32")]
    {
        let _ = frame_start;
        0.0
    }
}

/// Threads the demo's parallel work uses: rayon's pool on the desktop, one in a page.
pub fn threads() -> usize {
    #[cfg(not(target_arch = "wasm32"))]
    {
        rayon::current_num_threads()
    }
    #[cfg(target_arch = "wasm32")]
    1
}

/// The OpenGL renderer's name (`GL_RENDERER`: "llvmpipe (LLVM 15.0.6, 256 bits)", a GPU's
/// name), or `"WebGL"` in a page. Needs the window's context.
pub fn gl_renderer() -> String {
    #[cfg(not(target_arch = "wasm32"))]
    {
        const GL_RENDERER: u32 = 0x1F01;
        // SAFETY: called on the main thread with the window's context current; the string
        // is NUL-terminated and owned by the driver for the context's life.
        unsafe {
            let name = macroquad::miniquad::gl::glGetString(GL_RENDERER);
            if name.is_null() {
                return String::new();
            }
            std::ffi::CStr::from_ptr(name.cast())
                .to_string_lossy()
                .into_owned()
        }
    }
    #[cfg(target_arch = "wasm32")]
    "WebGL".to_owned()
}

/// Whether a `GL_RENDERER` string names a software rasteriser (Mesa's llvmpipe, softpipe or
/// swrast, Google's SwiftShader, Apple's software renderer), where drawing many small
/// triangles costs far more than filling them on the CPU.
pub fn is_software_renderer(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    ["llvmpipe", "softpipe", "swrast", "swiftshader", "software"]
        .iter()
        .any(|s| name.contains(s))
}

/// How the frame's particles and outlines reach the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Renderer {
    /// Filled on the CPU in bands on every core, shown as one texture.
    Canvas,
    /// One instanced draw call on the GPU.
    Instanced,
}

impl Renderer {
    /// The name the console and the HUD use.
    pub fn name(self) -> &'static str {
        match self {
            Renderer::Canvas => "canvas",
            Renderer::Instanced => "instanced",
        }
    }

    /// The renderer for a GPU named `gl_renderer` that can (`instancing`) or cannot draw
    /// instances with GLSL 3.30, or the `forced` one where it can run; with the reason.
    pub fn choose(
        forced: Option<Renderer>,
        gl_renderer: &str,
        instancing: bool,
    ) -> (Renderer, &'static str) {
        match forced {
            Some(Renderer::Canvas) => (Renderer::Canvas, "chosen by --renderer"),
            Some(Renderer::Instanced) if instancing => {
                (Renderer::Instanced, "chosen by --renderer")
            }
            Some(Renderer::Instanced) => (
                Renderer::Canvas,
                "instancing needs OpenGL 3.3, which this context lacks",
            ),
            None if !instancing => (
                Renderer::Canvas,
                "no OpenGL 3.3 instancing (WebGL1, OpenGL 2)",
            ),
            None if is_software_renderer(gl_renderer) => (
                Renderer::Canvas,
                "software OpenGL: filling pixels beats rasterising triangles",
            ),
            None => (Renderer::Instanced, "a GPU with instancing"),
        }
    }
}

/// Writes one line to the browser's console (`console.error` if `error`). The binary's
/// `println!`, `print!` and `eprintln!` come here on the web (see `main.rs`).
#[cfg(target_arch = "wasm32")]
pub fn console(line: &str, error: bool) {
    web::console(line, error)
}

/// Ends the program with `code` on the desktop. A page has no exit: on the web this returns,
/// and so does `main`.
pub fn exit(code: i32) {
    #[cfg(not(target_arch = "wasm32"))]
    std::process::exit(code);
    #[cfg(target_arch = "wasm32")]
    let _ = code;
}

/// Whether the scripted run (`--frames`) ends the program after its last frame. On the web the
/// page stays: the scripted actions happen on that frame and the demo goes on interactively.
pub const SCRIPTED_RUN_EXITS: bool = cfg!(not(target_arch = "wasm32"));

#[cfg(target_arch = "wasm32")]
mod web {
    use super::Args;
    use clap::Parser;

    // Provided by assets/web/quadstress.js.
    extern "C" {
        fn quadstress_console(ptr: *const u8, len: usize, error: bool);
        fn quadstress_args_len() -> usize;
        fn quadstress_args_copy(ptr: *mut u8, len: usize);
    }

    /// The version the page's plugin must declare: miniquad compares them on load and reports a
    /// stale `quadstress.js` beside a newer `.wasm` in the console.
    #[no_mangle]
    pub extern "C" fn quadstress_crate_version() -> u32 {
        1
    }

    pub fn console(line: &str, error: bool) {
        // SAFETY: the plugin reads `len` bytes at `ptr` during the call; `line` outlives it.
        unsafe { quadstress_console(line.as_ptr(), line.len(), error) }
    }

    pub fn script_args() -> Option<Args> {
        // SAFETY: the plugin writes at most `len` bytes into the buffer, which holds `len`.
        let bytes = unsafe {
            let len = quadstress_args_len();
            let mut bytes = vec![0u8; len];
            quadstress_args_copy(bytes.as_mut_ptr(), len);
            bytes
        };
        // The plugin turns the URL parameters into arguments separated by NUL bytes.
        let text = String::from_utf8_lossy(&bytes);
        let argv = std::iter::once("quadstress").chain(text.split('\0').filter(|a| !a.is_empty()));
        match Args::try_parse_from(argv) {
            Ok(args) if args.screenshot.is_some() => {
                console(
                    "error: a page cannot write files; take screenshots with the browser",
                    true,
                );
                None
            }
            Ok(args) => Some(args),
            Err(e) => {
                console(&e.to_string(), true);
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn software_renderers_get_the_canvas_and_gpus_instancing() {
        let llvmpipe = "llvmpipe (LLVM 15.0.6, 256 bits)";
        assert!(is_software_renderer(llvmpipe));
        assert!(is_software_renderer("Google SwiftShader"));
        assert!(!is_software_renderer("NVIDIA GeForce RTX 3060/PCIe/SSE2"));
        let gpu = "AMD Radeon RX 6600 (radeonsi, navi23, LLVM 15.0.6, DRM 3.49)";
        assert_eq!(Renderer::choose(None, llvmpipe, true).0, Renderer::Canvas);
        assert_eq!(Renderer::choose(None, gpu, true).0, Renderer::Instanced);
        assert_eq!(Renderer::choose(None, gpu, false).0, Renderer::Canvas);
        let forced = Some(Renderer::Instanced);
        assert_eq!(
            Renderer::choose(forced, llvmpipe, true).0,
            Renderer::Instanced
        );
        assert_eq!(Renderer::choose(forced, gpu, false).0, Renderer::Canvas);
        let canvas = Some(Renderer::Canvas);
        assert_eq!(Renderer::choose(canvas, gpu, true).0, Renderer::Canvas);
    }
}

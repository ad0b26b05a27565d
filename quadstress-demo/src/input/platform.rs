//! What differs between the desktop and a web page, in one place: where the demo's flags come
//! from, where its console lines go, its clock, and how it ends.
//!
//! On the web (`wasm32`) the page's script `assets/web/quadstress.js` supplies the functions
//! this module imports, beside miniquad's own `gl.js`.

/// Seconds on a clock: [`now_seconds`] in the window, a fake one in tests.
pub type Clock = fn() -> f64;

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

/// The page's URL parameters as command-line words: `?spawn=6000&frames=60` as
/// `--spawn 6000 --frames 60` (a parameter with no value is a switch).
#[cfg(target_arch = "wasm32")]
pub fn page_args() -> Vec<String> {
    web::page_args()
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
#[allow(unsafe_code)]
mod web {
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

    pub fn page_args() -> Vec<String> {
        // SAFETY: the plugin writes at most `len` bytes into the buffer, which holds `len`.
        let bytes = unsafe {
            let len = quadstress_args_len();
            let mut bytes = vec![0u8; len];
            quadstress_args_copy(bytes.as_mut_ptr(), len);
            bytes
        };
        // The plugin turns the URL parameters into arguments separated by NUL bytes.
        String::from_utf8_lossy(&bytes)
            .split('\0')
            .filter(|a| !a.is_empty())
            .map(str::to_owned)
            .collect()
    }
}

//! The quadstress binary: the interactive demo, its scripted mode, and the headless stress mode.

// In a web page std's standard output and error go nowhere: there the demo's console lines
// (the right-click report, messages, a run's timings) go to the browser's console instead.
#[cfg(target_arch = "wasm32")]
macro_rules! println {
    () => { $crate::platform::console("", false) };
    ($($arg:tt)*) => { $crate::platform::console(&format!($($arg)*), false) };
}
#[cfg(target_arch = "wasm32")]
macro_rules! print {
    ($($arg:tt)*) => { $crate::platform::console(&format!($($arg)*), false) };
}
#[cfg(target_arch = "wasm32")]
macro_rules! eprintln {
    ($($arg:tt)*) => { $crate::platform::console(&format!($($arg)*), true) };
}

// On the desktop a console line into a closed pipe (`quadstress ... | head`) is dropped
// instead of ending the demo with a panic.
#[cfg(not(target_arch = "wasm32"))]
macro_rules! println {
    () => { println!("") };
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}
#[cfg(not(target_arch = "wasm32"))]
macro_rules! print {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout(), $($arg)*);
    }};
}

mod app;
mod canvas;
mod cli;
mod controls;
mod draw;
mod headless;
mod instanced;
mod overlay;
mod panel;
mod platform;
mod probe;
mod profile;
mod scene;
mod stepper;
mod view;
mod window;

fn main() {
    // The command line, or a web page's URL parameters.
    let Some(args) = platform::script_args() else {
        return;
    };
    let result = if args.controls {
        print!("{}", controls::markdown_table());
        Ok(())
    } else if args.headless {
        headless::run(&args)
    } else {
        window::run_window(args)
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        platform::exit(2);
    }
}

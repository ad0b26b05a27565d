//! The quadstress binary: the interactive demo, its scripted mode, and the headless stress mode.

// In a web page std's standard output and error go nowhere: there the demo's console lines
// (the right-click report, messages, a run's timings) go to the browser's console instead.
#[cfg(target_arch = "wasm32")]
macro_rules! println {
    () => { $crate::demo::platform::console("", false) };
    ($($arg:tt)*) => { $crate::demo::platform::console(&format!($($arg)*), false) };
}
#[cfg(target_arch = "wasm32")]
macro_rules! print {
    ($($arg:tt)*) => { $crate::demo::platform::console(&format!($($arg)*), false) };
}
#[cfg(target_arch = "wasm32")]
macro_rules! eprintln {
    ($($arg:tt)*) => { $crate::demo::platform::console(&format!($($arg)*), true) };
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

mod demo;

fn main() {
    // The command line, or a web page's URL parameters.
    let Some(args) = demo::platform::script_args() else {
        return;
    };
    let result = if args.controls {
        print!("{}", demo::controls::markdown_table());
        Ok(())
    } else if args.headless {
        demo::headless::run(&args)
    } else {
        demo::run_window(args)
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        demo::platform::exit(2);
    }
}

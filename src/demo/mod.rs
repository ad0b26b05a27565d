//! The demo binary's modules.

pub mod cli;
pub mod headless;

/// Opens the window (in its own module once written).
pub fn run_window(_args: cli::Args) {
    eprintln!("the window is not built yet");
}

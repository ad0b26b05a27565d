//! The quadstress binary: the interactive demo, its scripted mode, and the headless stress mode.

mod demo;

use clap::Parser;

fn main() {
    let args = demo::cli::Args::parse();
    if args.headless {
        if let Err(e) = demo::headless::run(&args) {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
        return;
    }
    demo::run_window(args);
}

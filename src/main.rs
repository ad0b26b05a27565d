//! The quadstress binary: the interactive demo, its scripted mode, and the headless stress mode.

mod demo;

use clap::Parser;

fn main() {
    let args = demo::cli::Args::parse();
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
        std::process::exit(2);
    }
}

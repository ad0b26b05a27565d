//! The quadstress binary: the interactive demo, its scripted mode, and the headless stress mode.
//!
//! # Layers
//!
//! The modules form four layers, and a module imports only from its own layer or the ones
//! before it, never in a circle (a test below reads the imports and checks it):
//!
//! 1. **input**: the platform (clock, console, a page's parameters) and the controls table
//!    (every key and button, the pointer);
//! 2. **settings**: plain shared types (`settings`: the world, what is drawn, the renderer),
//!    the panel's controls table and the command-line flags;
//! 3. **state**: the app and what it owns (the blue probe, the camera and view, the profile,
//!    the stepper that runs steps beside the drawing), the scripted run, the headless mode;
//! 4. **render**: the palette, the scene and its two painters (CPU canvas, instanced GPU),
//!    the cached overlay, the raw OpenGL (`gl`, the one module allowed `unsafe`), the HUD and
//!    panel drawing, and the frame loop (`window`).
#![deny(unsafe_code)]

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

// Input.
mod controls;
mod platform;
// Settings.
mod cli;
mod files;
mod panel_controls;
mod settings;
mod startup;
// State.
mod app;
mod headless;
mod headless_ramp;
mod headless_script;
mod plot;
mod probe;
mod profile;
mod ramp;
mod ramp_window;
mod script;
mod stepper;
mod view;
// Render.
mod canvas;
mod draw;
#[allow(unsafe_code)]
mod gl;
mod instanced;
mod overlay;
mod palette;
mod panel;
mod ramp_view;
mod scene;
mod window;

fn main() {
    // The command line, or a web page's URL parameters.
    let Some(args) = cli::script_args() else {
        return;
    };
    let result = if args.controls {
        print!("{}", controls::markdown_table());
        Ok(())
    } else if let Err(e) = startup::check(&args)
        .and_then(|()| ramp::check_outputs(args.csv.as_deref(), args.plot.as_deref(), args.ramp))
    {
        Err(e)
    } else if args.headless {
        startup::apply_threads(&args);
        headless::run(&args)
    } else {
        startup::check_display().and_then(|()| {
            startup::apply_threads(&args);
            window::run_window(args)
        })
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        platform::exit(2);
    }
}

#[cfg(test)]
mod layers {
    //! The layers of the module docs, checked from the source: every `crate::`/`super::` path
    //! names a module of the same layer or an earlier one, and no modules import each other
    //! in a circle.

    /// Each module's layer: 0 input, 1 settings, 2 state, 3 render.
    const LAYERS: &[(&str, u8)] = &[
        ("controls", 0),
        ("platform", 0),
        ("cli", 1),
        ("files", 1),
        ("panel_controls", 1),
        ("settings", 1),
        ("startup", 1),
        ("app", 2),
        ("headless", 2),
        ("headless_ramp", 2),
        ("headless_script", 2),
        ("plot", 2),
        ("probe", 2),
        ("profile", 2),
        ("ramp", 2),
        ("ramp_window", 2),
        ("script", 2),
        ("stepper", 2),
        ("view", 2),
        ("canvas", 3),
        ("draw", 3),
        ("gl", 3),
        ("instanced", 3),
        ("overlay", 3),
        ("palette", 3),
        ("panel", 3),
        ("ramp_view", 3),
        ("scene", 3),
        ("window", 3),
    ];

    fn layer(module: &str) -> Option<u8> {
        LAYERS.iter().find(|(m, _)| *m == module).map(|&(_, l)| l)
    }

    /// The modules `source` names through `crate::` or `super::` paths (`{a, b}` groups too).
    fn imports(source: &str) -> Vec<String> {
        let mut found = Vec::new();
        for prefix in ["crate::", "super::"] {
            for (at, _) in source.match_indices(prefix) {
                let rest = &source[at + prefix.len()..];
                let names: Vec<&str> = match rest.strip_prefix('{') {
                    Some(group) => group[..group.find('}').unwrap_or(group.len())]
                        .split(',')
                        .map(|n| n.trim().split("::").next().unwrap_or("").trim())
                        .collect(),
                    None => vec![rest
                        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .next()
                        .unwrap_or("")],
                };
                found.extend(
                    names
                        .into_iter()
                        .filter(|n| layer(n).is_some())
                        .map(str::to_owned),
                );
            }
        }
        found.sort();
        found.dedup();
        found
    }

    fn graph() -> Vec<(&'static str, Vec<String>)> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        LAYERS
            .iter()
            .map(|&(m, _)| {
                let source = std::fs::read_to_string(dir.join(format!("{m}.rs")))
                    .unwrap_or_else(|e| panic!("{m}.rs: {e}"));
                let own = m.to_owned();
                (
                    m,
                    imports(&source).into_iter().filter(|i| *i != own).collect(),
                )
            })
            .collect()
    }

    #[test]
    fn every_module_has_a_layer() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        for entry in std::fs::read_dir(dir).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            let module = name.trim_end_matches(".rs");
            if module != "main" {
                assert!(layer(module).is_some(), "{name} has no layer in LAYERS");
            }
        }
    }

    #[test]
    fn imports_point_down_the_layers_and_never_in_a_circle() {
        let graph = graph();
        for (module, imports) in &graph {
            for import in imports {
                assert!(
                    layer(import) <= layer(module),
                    "{module} (layer {:?}) imports {import} (layer {:?})",
                    layer(module),
                    layer(import)
                );
            }
        }
        // No circle: modules are taken off as soon as everything they import is taken.
        let mut left: Vec<_> = graph.iter().collect();
        while !left.is_empty() {
            let before = left.len();
            let done: Vec<&str> = graph
                .iter()
                .filter(|(m, _)| !left.iter().any(|(l, _)| l == m))
                .map(|(m, _)| *m)
                .collect();
            left.retain(|(_, imports)| !imports.iter().all(|i| done.contains(&i.as_str())));
            assert!(
                left.len() < before,
                "modules importing each other in a circle: {:?}",
                left.iter().map(|(m, _)| m).collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn the_check_sees_grouped_and_nested_paths() {
        let found = imports("use crate::{app, view::View};\nuse super::super::scene::Scene;");
        assert_eq!(found, ["app", "scene", "view"]);
    }
}

//! The quadstress demo: the interactive window, its scripted mode, and the headless stress
//! mode, which the `quadstress` binary runs ([`run`]). The library target is for the demo's
//! own tests: they read its colours ([`palette`]) and its report lines ([`report`]) from here
//! instead of keeping copies.
//!
//! # Layers
//!
//! The modules sit in five folders, one a layer. A module imports only from its own folder or
//! an earlier layer, never in a circle (a test below reads the imports and checks it):
//!
//! 1. **`input/`**: the platform (clock, console, a page's parameters) and the controls table
//!    (every key and button, the pointer);
//! 2. **`settings/`**: plain shared types (`settings`: the world, what is drawn, the renderer),
//!    the panel's controls table, the command-line flags and the start-up checks;
//! 3. **`state/`**: the app and what it owns (the blue probe, the camera and view, the profile,
//!    the stepper that runs steps beside the drawing), the scripted run, the ramp;
//! 4. **`render/`**: the palette, the scene and its two painters (CPU canvas, instanced GPU),
//!    the cached overlay, the raw OpenGL (`gl`, the one module allowed `unsafe`), the HUD and
//!    panel drawing, and the frame loop (`window`);
//! 5. **`headless/`**, beside `render/`: the stress mode with no window. Neither of the two
//!    imports the other.
#![deny(unsafe_code)]

// In a web page std's standard output and error go nowhere: there the demo's console lines
// (the right-click report, messages, a run's timings) go to the browser's console instead.
#[cfg(target_arch = "wasm32")]
macro_rules! println {
    () => { $crate::input::platform::console("", false) };
    ($($arg:tt)*) => { $crate::input::platform::console(&format!($($arg)*), false) };
}
#[cfg(target_arch = "wasm32")]
macro_rules! print {
    ($($arg:tt)*) => { $crate::input::platform::console(&format!($($arg)*), false) };
}
#[cfg(target_arch = "wasm32")]
macro_rules! eprintln {
    ($($arg:tt)*) => { $crate::input::platform::console(&format!($($arg)*), true) };
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

mod headless;
mod input;
mod render;
mod settings;
mod state;

pub use render::palette;
pub use settings::report;

/// The `quadstress` binary: runs what the command line (or a web page's URL parameters) asks
/// for, and exits with status 2 and a message on a bad flag.
pub fn run() {
    // The command line, or a web page's URL parameters.
    let Some(args) = settings::cli::script_args() else {
        return;
    };
    let result = if args.controls {
        print!("{}", input::controls::markdown_table());
        Ok(())
    } else if let Err(e) = settings::startup::check(&args).and_then(|()| {
        state::ramp::check_outputs(args.csv.as_deref(), args.plot.as_deref(), args.ramp)
    }) {
        Err(e)
    } else if args.headless {
        settings::startup::apply_threads(&args);
        headless::run(&args)
    } else {
        settings::startup::check_display().and_then(|()| {
            settings::startup::apply_threads(&args);
            render::window::run_window(args)
        })
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        input::platform::exit(2);
    }
}

#[cfg(test)]
mod layers {
    //! The layers of the module docs, checked from the source: every `crate::` path names a
    //! folder of an earlier layer or the module's own, and no modules import each other in a
    //! circle.

    use std::path::Path;

    /// Each folder and its layer: 0 input, 1 settings, 2 state, 3 render and headless.
    const LAYERS: &[(&str, u8)] = &[
        ("input", 0),
        ("settings", 1),
        ("state", 2),
        ("render", 3),
        ("headless", 3),
    ];

    fn layer(folder: &str) -> Option<u8> {
        LAYERS.iter().find(|(f, _)| *f == folder).map(|&(_, l)| l)
    }

    /// Whether a module in folder `from` may import one in folder `to`.
    fn allowed(from: &str, to: &str) -> bool {
        from == to || layer(to) < layer(from)
    }

    /// A module: its folder and its name (the folder's own name for its `mod.rs`).
    type Module = (String, String);

    /// The modules `source`, in `folder`, names: `crate::FOLDER::MODULE` and
    /// `crate::FOLDER::{A, B}` paths, a folder's own `crate::FOLDER::ITEM` (its `mod.rs`), and
    /// `super::MODULE` within the folder.
    fn imports(source: &str, folder: &str, modules: &[Module]) -> Vec<Module> {
        let is_module = |f: &str, m: &str| modules.iter().any(|(mf, mm)| mf == f && mm == m);
        let first = |s: &str| {
            s.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .next()
                .unwrap_or("")
                .to_owned()
        };
        let mut found = Vec::new();
        for (at, _) in source.match_indices("crate::") {
            let rest = &source[at + "crate::".len()..];
            let f = first(rest);
            if layer(&f).is_none() {
                continue;
            }
            let rest = rest[f.len()..].strip_prefix("::").unwrap_or("");
            let names: Vec<String> = match rest.strip_prefix('{') {
                Some(group) => group[..group.find('}').unwrap_or(group.len())]
                    .split(',')
                    .map(|n| first(n.trim()))
                    .collect(),
                None => vec![first(rest)],
            };
            for n in names {
                let m = if is_module(&f, &n) { n } else { f.clone() };
                found.push((f.clone(), m));
            }
        }
        for (at, _) in source.match_indices("super::") {
            let n = first(&source[at + "super::".len()..]);
            if is_module(folder, &n) {
                found.push((folder.to_owned(), n));
            }
        }
        found.sort();
        found.dedup();
        found
    }

    /// Every module of every layer's folder, and the other files of `src/`.
    fn modules() -> (Vec<Module>, Vec<String>) {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let (mut modules, mut loose) = (Vec::new(), Vec::new());
        for entry in std::fs::read_dir(&src).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            if layer(&name).is_none() {
                loose.push(name);
                continue;
            }
            for file in std::fs::read_dir(src.join(&name)).unwrap() {
                let file = file.unwrap().file_name().into_string().unwrap();
                let stem = file.trim_end_matches(".rs");
                let m = if stem == "mod" { name.as_str() } else { stem };
                modules.push((name.clone(), m.to_owned()));
            }
        }
        modules.sort();
        loose.sort();
        (modules, loose)
    }

    fn graph() -> Vec<(Module, Vec<Module>)> {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let (modules, _) = modules();
        modules
            .iter()
            .map(|(f, m)| {
                let file = if f == m { "mod" } else { m.as_str() };
                let path = src.join(f).join(format!("{file}.rs"));
                let source = std::fs::read_to_string(&path)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                let own = (f.clone(), m.clone());
                let imports = imports(&source, f, &modules);
                (
                    own.clone(),
                    imports.into_iter().filter(|i| *i != own).collect(),
                )
            })
            .collect()
    }

    #[test]
    fn every_module_sits_in_a_layers_folder() {
        let (modules, loose) = modules();
        assert_eq!(
            loose,
            ["lib.rs", "main.rs"],
            "files of src/ outside the layers' folders"
        );
        for (folder, _) in LAYERS {
            assert!(
                modules.iter().filter(|(f, _)| f == folder).count() >= 2,
                "{folder}/ has its modules"
            );
        }
    }

    #[test]
    fn imports_point_down_the_layers_and_never_in_a_circle() {
        let graph = graph();
        let mut across = 0;
        for ((folder, module), imports) in &graph {
            for (f, m) in imports {
                across += usize::from(f != folder);
                assert!(
                    allowed(folder, f),
                    "{folder}/{module} (layer {:?}) imports {f}/{m} (layer {:?})",
                    layer(folder),
                    layer(f)
                );
            }
        }
        assert!(
            across > 20,
            "only {across} imports across folders were seen"
        );
        // No circle: modules are taken off as soon as everything they import is taken.
        let mut left: Vec<_> = graph.iter().collect();
        while !left.is_empty() {
            let before = left.len();
            let done: Vec<&Module> = graph
                .iter()
                .filter(|(m, _)| !left.iter().any(|(l, _)| l == m))
                .map(|(m, _)| m)
                .collect();
            left.retain(|(_, imports)| !imports.iter().all(|i| done.contains(&i)));
            assert!(
                left.len() < before,
                "modules importing each other in a circle: {:?}",
                left.iter().map(|(m, _)| m).collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn the_check_sees_grouped_nested_and_folder_paths() {
        let modules: Vec<Module> = [("state", "app"), ("state", "view"), ("render", "scene")]
            .map(|(f, m)| (f.to_owned(), m.to_owned()))
            .to_vec();
        let found = imports(
            "use crate::state::{app, view::View};\nuse super::scene::Scene;\n\
             use crate::settings::WORLD;",
            "render",
            &modules,
        );
        let names: Vec<String> = found.iter().map(|(f, m)| format!("{f}/{m}")).collect();
        assert_eq!(
            names,
            [
                "render/scene",
                "settings/settings",
                "state/app",
                "state/view"
            ]
        );
        assert!(allowed("render", "state") && allowed("headless", "settings"));
        for (from, to) in [
            ("render", "headless"),
            ("headless", "render"),
            ("state", "render"),
        ] {
            assert!(!allowed(from, to), "{from} may not import {to}");
        }
    }
}

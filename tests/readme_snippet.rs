//! The README's library snippet, pasted into a fresh crate with a path dependency on this one,
//! builds under `#![deny(warnings)]`: doctests hide warnings (an unused `ControlFlow` a
//! closure returns, an unused import), a user's crate does not.
//!
//! It builds a small crate with `cargo build --offline` (the library has no dependencies) in
//! its own target directory under this workspace's, so it reuses its last build and never
//! waits for the lock of the build that runs it: a few seconds after the first time.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The first ```rust block after the README's "## The library" heading, with rustdoc's hidden
/// lines (`# `) shown, as a user would paste it.
fn library_snippet(readme: &str) -> String {
    let library = readme
        .find("## The library")
        .expect("the README has a library section");
    let rest = &readme[library..];
    let start = rest.find("```rust\n").expect("a rust block") + "```rust\n".len();
    let len = rest[start..].find("```").expect("the block ends");
    rest[start..start + len]
        .lines()
        .map(|line| match line.strip_prefix("# ") {
            Some(hidden) => hidden,
            None if line == "#" => "",
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn readme_snippet_builds_without_warnings_in_a_fresh_crate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let snippet = library_snippet(&readme);
    assert!(
        snippet.contains("Quadtree::new") && snippet.trim_end().ends_with("(())"),
        "the snippet is the library example and ends with its `Ok`: {snippet}"
    );

    let dir = std::env::temp_dir().join(format!("quadstress-readme-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("src")).expect("a temporary crate");
    let manifest = format!(
        "[package]\nname = \"readme-snippet\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
         publish = false\n\n[dependencies]\nquadstress = {{ path = {:?} }}\n\n[workspace]\n",
        root.display().to_string()
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).expect("Cargo.toml");
    // The snippet's last line is its result, as in a doctest.
    let main = format!(
        "#![deny(warnings)]\n\nfn main() -> Result<(), quadstress::QuadtreeError> {{\n{snippet}\n}}\n"
    );
    std::fs::write(dir.join("src/main.rs"), main).expect("main.rs");

    // This workspace's target directory, beside its own builds.
    // (A relative `CARGO_TARGET_DIR` names a folder of the workspace, which is `root`.)
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(|dir| root.join(PathBuf::from(dir)))
        .unwrap_or_else(|| root.join("target"))
        .join("readme-snippet");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args(["build", "--offline", "--quiet"])
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", &target)
        .env_remove("RUSTFLAGS")
        .output()
        .expect("cargo runs");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        out.status.success(),
        "the README snippet does not build under #![deny(warnings)]:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn hidden_lines_are_shown_and_the_section_is_found() {
    let readme = "# T\n```rust\nnot this\n```\n## The library\n```toml\nx\n```\n```rust\nlet a = 1;\n# Ok::<(), E>(())\n#\n```\n";
    assert_eq!(library_snippet(readme), "let a = 1;\nOk::<(), E>(())\n");
}

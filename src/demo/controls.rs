//! Every input of the demo in one table. The loop dispatches from it, the on-screen help and
//! the README's controls table are generated from it.

use macroquad::input::{KeyCode, MouseButton};

/// What an input does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Spawn particles at random positions, slowly, while held.
    SpawnTrickle,
    /// Spawn particles at random positions, fast, while held.
    SpawnFlood,
    /// Spawn a stream at the cursor while held.
    SpawnAtCursor,
    /// Test the blue quad against the particles.
    TestQuad,
    /// Drag the blue quad.
    DragQuad,
    /// Change the cursor's spawn rate.
    SpawnRate,
    /// Move the blue quad.
    QuadLeft,
    /// Move the blue quad.
    QuadRight,
    /// Move the blue quad.
    QuadUp,
    /// Move the blue quad.
    QuadDown,
    /// Node outlines on/off.
    ToggleOutlines,
    /// Pause/resume.
    Pause,
    /// Advance one frame while paused.
    Step,
    /// Remove every particle.
    Clear,
    /// Gravity on/off.
    ToggleGravity,
    /// Next broad phase.
    CycleBroadphase,
    /// Halve the leaf capacity.
    CapacityDown,
    /// Double the leaf capacity.
    CapacityUp,
    /// One level shallower.
    DepthDown,
    /// One level deeper.
    DepthUp,
    /// Exact / loose placement.
    TogglePlacement,
    /// Help overlay on/off.
    ToggleHelp,
}

/// The physical input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// A keyboard key.
    Key(KeyCode),
    /// A mouse button.
    Mouse(MouseButton),
    /// The mouse wheel.
    Wheel,
}

/// How the input is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// Every frame while held (`is_key_down`).
    Held,
    /// Once per press (`is_key_pressed`).
    Pressed,
}

/// One row of the table.
#[derive(Clone, Copy, Debug)]
pub struct Binding {
    /// The input.
    pub input: Input,
    /// How it is named in the help.
    pub label: &'static str,
    /// Held or pressed.
    pub trigger: Trigger,
    /// What it does.
    pub action: Action,
    /// What the help says.
    pub help: &'static str,
}

const fn key(
    code: KeyCode,
    label: &'static str,
    trigger: Trigger,
    action: Action,
    help: &'static str,
) -> Binding {
    Binding {
        input: Input::Key(code),
        label,
        trigger,
        action,
        help,
    }
}

/// The whole table.
pub const BINDINGS: &[Binding] = &[
    key(
        KeyCode::Key1,
        "1",
        Trigger::Held,
        Action::SpawnTrickle,
        "hold: spawn particles at random (300/s)",
    ),
    key(
        KeyCode::Key2,
        "2",
        Trigger::Held,
        Action::SpawnFlood,
        "hold: spawn particles at random (6000/s)",
    ),
    Binding {
        input: Input::Mouse(MouseButton::Left),
        label: "left mouse",
        trigger: Trigger::Held,
        action: Action::SpawnAtCursor,
        help: "hold: spawn a stream at the cursor",
    },
    Binding {
        input: Input::Wheel,
        label: "mouse wheel",
        trigger: Trigger::Held,
        action: Action::SpawnRate,
        help: "cursor spawn rate up / down",
    },
    Binding {
        input: Input::Mouse(MouseButton::Right),
        label: "right mouse",
        trigger: Trigger::Pressed,
        action: Action::TestQuad,
        help: "test the blue quad through the tree (outside it: move it there first)",
    },
    Binding {
        input: Input::Mouse(MouseButton::Middle),
        label: "middle mouse",
        trigger: Trigger::Held,
        action: Action::DragQuad,
        help: "hold: drag the blue quad",
    },
    key(
        KeyCode::Left,
        "arrows",
        Trigger::Held,
        Action::QuadLeft,
        "hold: move the blue quad",
    ),
    key(
        KeyCode::Right,
        "arrows",
        Trigger::Held,
        Action::QuadRight,
        "hold: move the blue quad",
    ),
    key(
        KeyCode::Up,
        "arrows",
        Trigger::Held,
        Action::QuadUp,
        "hold: move the blue quad",
    ),
    key(
        KeyCode::Down,
        "arrows",
        Trigger::Held,
        Action::QuadDown,
        "hold: move the blue quad",
    ),
    key(
        KeyCode::O,
        "O",
        Trigger::Pressed,
        Action::ToggleOutlines,
        "node outlines on / off",
    ),
    key(
        KeyCode::Space,
        "space",
        Trigger::Pressed,
        Action::Pause,
        "pause / resume",
    ),
    key(
        KeyCode::Period,
        ".",
        Trigger::Pressed,
        Action::Step,
        "single step while paused",
    ),
    key(
        KeyCode::C,
        "C",
        Trigger::Pressed,
        Action::Clear,
        "clear all particles",
    ),
    key(
        KeyCode::G,
        "G",
        Trigger::Pressed,
        Action::ToggleGravity,
        "gravity on / off",
    ),
    key(
        KeyCode::B,
        "B",
        Trigger::Pressed,
        Action::CycleBroadphase,
        "broad phase: incremental tree / rebuilt tree / brute force",
    ),
    key(
        KeyCode::LeftBracket,
        "[",
        Trigger::Pressed,
        Action::CapacityDown,
        "leaf capacity / 2 (tree rebuilt)",
    ),
    key(
        KeyCode::RightBracket,
        "]",
        Trigger::Pressed,
        Action::CapacityUp,
        "leaf capacity x 2 (tree rebuilt)",
    ),
    key(
        KeyCode::Minus,
        "-",
        Trigger::Pressed,
        Action::DepthDown,
        "depth limit - 1 (tree rebuilt)",
    ),
    key(
        KeyCode::Equal,
        "=",
        Trigger::Pressed,
        Action::DepthUp,
        "depth limit + 1 (tree rebuilt)",
    ),
    key(
        KeyCode::L,
        "L",
        Trigger::Pressed,
        Action::TogglePlacement,
        "placement: exact (smallest containing node) / loose (tree rebuilt)",
    ),
    key(
        KeyCode::H,
        "H",
        Trigger::Pressed,
        Action::ToggleHelp,
        "help on / off",
    ),
];

/// Help lines, one per distinct (label, help) row, in table order: bindings that share a label
/// and a text (the four arrows) show once.
pub fn help_lines() -> impl Iterator<Item = (&'static str, &'static str)> {
    BINDINGS.iter().enumerate().filter_map(|(i, b)| {
        let seen = BINDINGS[..i]
            .iter()
            .any(|o| o.label == b.label && o.help == b.help);
        (!seen).then_some((b.label, b.help))
    })
}

/// The README's controls table, in Markdown.
pub fn markdown_table() -> String {
    let mut s = String::from("| input | action |\n|---|---|\n");
    for (label, help) in help_lines() {
        s.push_str(&format!("| `{label}` | {help} |\n"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readme_controls_table_matches_the_key_table() {
        let readme =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
        let table = markdown_table();
        assert!(
            readme.contains(&table),
            "README.md's controls table is out of date; it should contain:\n{table}"
        );
    }

    #[test]
    fn no_input_is_bound_twice() {
        for (i, a) in BINDINGS.iter().enumerate() {
            for b in &BINDINGS[i + 1..] {
                assert!(a.input != b.input, "{:?} bound twice", a.input);
            }
        }
    }

    #[test]
    fn the_spawn_keys_the_issue_asks_for_exist() {
        let held_spawns = BINDINGS
            .iter()
            .filter(|b| matches!(b.action, Action::SpawnTrickle | Action::SpawnFlood))
            .filter(|b| b.trigger == Trigger::Held)
            .count();
        assert!(held_spawns >= 2);
        assert!(
            help_lines().count() < BINDINGS.len(),
            "the arrows fold into one help line"
        );
    }
}

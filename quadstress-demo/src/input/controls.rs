//! Every input of the demo in one table. The loop dispatches from it, the on-screen help and
//! the README's controls table are generated from it.

use macroquad::input::{
    is_key_down, is_key_pressed, is_mouse_button_down, is_mouse_button_pressed, mouse_position,
    mouse_wheel, KeyCode, MouseButton,
};

/// The pointer this frame: where it is on screen and how far the wheel turned.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Pointer {
    /// Screen position.
    pub x: f32,
    pub y: f32,
    /// Wheel notches, positive away from the user.
    pub wheel: f32,
}

/// Particles per second while `1` is held.
pub const TRICKLE_PER_SECOND: u32 = 300;
/// Particles per second while `2` is held.
pub const FLOOD_PER_SECOND: u32 = 6000;

/// What an input does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Spawn particles at random positions, slowly, while held.
    SpawnTrickle,
    /// Spawn particles at random positions, fast, while held.
    SpawnFlood,
    /// Spawn a stream at the cursor while held.
    SpawnAtCursor,
    /// Test the blue quad against the particles; dragging moves the quad.
    TestQuad,
    /// Pan the view by dragging.
    Pan,
    /// Zoom about the cursor.
    Zoom,
    /// Show the whole world.
    FitWorld,
    /// Slower cursor stream.
    SpawnRateDown,
    /// Faster cursor stream.
    SpawnRateUp,
    /// Move the blue quad.
    QuadLeft,
    /// Move the blue quad.
    QuadRight,
    /// Move the blue quad.
    QuadUp,
    /// Move the blue quad.
    QuadDown,
    /// Next particle colouring.
    CycleColors,
    /// Node outlines: all, the leaves only, none.
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
    /// HUD on/off.
    ToggleHud,
    /// Help overlay on/off.
    ToggleHelp,
    /// Controls panel on/off.
    TogglePanel,
    /// Next query shape of the blue quad: rectangle, circle, k nearest.
    CycleQuery,
    /// Close the help, then the panel; with neither open, end the program (on the desktop).
    Close,
    /// Start the ramp (particles added until frames miss the budget); stop it; close its chart.
    Ramp,
}

impl Action {
    /// Particles per second of a random-spawn action.
    pub const fn spawn_rate(self) -> Option<u32> {
        match self {
            Action::SpawnTrickle => Some(TRICKLE_PER_SECOND),
            Action::SpawnFlood => Some(FLOOD_PER_SECOND),
            _ => None,
        }
    }
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
    /// How it is named in the help, and in `--press`.
    pub label: &'static str,
    /// Held or pressed.
    pub trigger: Trigger,
    /// What it does.
    pub action: Action,
    /// What the help says (a spawn rate is added from the action).
    pub help: &'static str,
}

impl Binding {
    /// The help text, with the spawn rate where the action has one.
    pub fn help_text(&self) -> String {
        match self.action.spawn_rate() {
            Some(rate) => format!("{} ({rate}/s)", self.help),
            None => self.help.to_owned(),
        }
    }
}

const fn bind(
    input: Input,
    label: &'static str,
    trigger: Trigger,
    action: Action,
    help: &'static str,
) -> Binding {
    Binding {
        input,
        label,
        trigger,
        action,
        help,
    }
}

use Action as A;
use Input::{Key, Mouse, Wheel};
use Trigger::{Held, Pressed};

/// The whole table, one binding per row.
#[rustfmt::skip]
pub const BINDINGS: &[Binding] = &[
    bind(Key(KeyCode::Key1),          "1",            Held,    A::SpawnTrickle,     "hold: spawn particles at random"),
    bind(Key(KeyCode::Key2),          "2",            Held,    A::SpawnFlood,       "hold: spawn particles at random"),
    bind(Mouse(MouseButton::Left),    "left mouse",   Held,    A::SpawnAtCursor,    "hold: spawn a stream at the cursor"),
    bind(Key(KeyCode::Q),             "Q",            Pressed, A::SpawnRateDown,    "cursor stream slower"),
    bind(Key(KeyCode::E),             "E",            Pressed, A::SpawnRateUp,      "cursor stream faster"),
    bind(Mouse(MouseButton::Right),   "right mouse",  Held,    A::TestQuad,         "test the blue quad (outside it: move it there first); drag: move it"),
    bind(Key(KeyCode::Left),          "arrows",       Held,    A::QuadLeft,         "hold: move the blue quad"),
    bind(Key(KeyCode::Right),         "arrows",       Held,    A::QuadRight,        "hold: move the blue quad"),
    bind(Key(KeyCode::Up),            "arrows",       Held,    A::QuadUp,           "hold: move the blue quad"),
    bind(Key(KeyCode::Down),          "arrows",       Held,    A::QuadDown,         "hold: move the blue quad"),
    bind(Wheel,                       "mouse wheel",  Held,    A::Zoom,             "zoom about the cursor"),
    bind(Mouse(MouseButton::Middle),  "middle mouse", Held,    A::Pan,              "drag: pan the view"),
    bind(Key(KeyCode::F),             "F",            Pressed, A::FitWorld,         "show the whole world"),
    bind(Key(KeyCode::V),             "V",            Pressed, A::CycleColors,      "colours: node depth / speed / contact"),
    bind(Key(KeyCode::O),             "O",            Pressed, A::ToggleOutlines,   "node outlines: all / leaves only / off; yellow edge: split or merged in the last second"),
    bind(Key(KeyCode::Space),         "space",        Pressed, A::Pause,            "pause / resume"),
    bind(Key(KeyCode::Period),        ".",            Pressed, A::Step,             "single step while paused"),
    bind(Key(KeyCode::C),             "C",            Pressed, A::Clear,            "clear all particles"),
    bind(Key(KeyCode::G),             "G",            Pressed, A::ToggleGravity,    "gravity on / off"),
    bind(Key(KeyCode::B),             "B",            Pressed, A::CycleBroadphase,  "broad phase: incremental tree / rebuilt tree / brute force"),
    bind(Key(KeyCode::LeftBracket),   "[",            Pressed, A::CapacityDown,     "leaf capacity / 2 (tree rebuilt)"),
    bind(Key(KeyCode::RightBracket),  "]",            Pressed, A::CapacityUp,       "leaf capacity x 2 (tree rebuilt)"),
    bind(Key(KeyCode::Minus),         "-",            Pressed, A::DepthDown,        "depth limit - 1 (tree rebuilt)"),
    bind(Key(KeyCode::Equal),         "=",            Pressed, A::DepthUp,          "depth limit + 1 (tree rebuilt)"),
    bind(Key(KeyCode::L),             "L",            Pressed, A::TogglePlacement,  "placement: exact (smallest containing node) / loose (tree rebuilt)"),
    bind(Key(KeyCode::K),             "K",            Pressed, A::CycleQuery,       "right-click query: rectangle / circle / k nearest"),
    bind(Key(KeyCode::Tab),           "tab",          Pressed, A::ToggleHud,        "statistics and controls panels on / off"),
    bind(Key(KeyCode::P),             "P",            Pressed, A::TogglePanel,      "controls panel on / off"),
    bind(Key(KeyCode::H),             "H",            Pressed, A::ToggleHelp,       "help on / off"),
    bind(Key(KeyCode::R),             "R",            Pressed, A::Ramp,             "ramp: add particles until frames miss 60 FPS two seconds in a row, then show the curve; again: stop, close"),
    bind(Key(KeyCode::Escape),        "esc",          Pressed, A::Close,            "close the help, then the panel; then quit (on the desktop; a web page stays)"),
];

/// Help lines, one per distinct (label, help) row, in table order: bindings that share a label
/// and a text (the four arrows) show once.
pub fn help_lines() -> impl Iterator<Item = (&'static str, String)> {
    BINDINGS.iter().enumerate().filter_map(|(i, b)| {
        let seen = BINDINGS[..i]
            .iter()
            .any(|o| o.label == b.label && o.help == b.help);
        (!seen).then(|| (b.label, b.help_text()))
    })
}

/// The label of the first input bound to `action`, for the panel's captions.
pub fn label_of(action: Action) -> Option<&'static str> {
    BINDINGS
        .iter()
        .find(|b| b.action == action)
        .map(|b| b.label)
}

/// The bindings a label names (`--press` uses the help's labels), case-insensitively.
pub fn by_label(label: &str) -> impl Iterator<Item = &'static Binding> + '_ {
    BINDINGS.iter().filter(move |b| same_label(b.label, label))
}

/// Whether two labels name the same input: case, spaces and underscores aside, so that
/// `LeftMouse` and `left_mouse` name `left mouse`.
fn same_label(a: &str, b: &str) -> bool {
    fn key(s: &str) -> impl Iterator<Item = char> + '_ {
        s.chars()
            .filter(|c| *c != ' ' && *c != '_')
            .map(|c| c.to_ascii_lowercase())
    }
    key(a).eq(key(b))
}

/// Whether binding `b`'s input is active this frame (macroquad's input state).
pub fn is_active(b: &Binding) -> bool {
    match (b.input, b.trigger) {
        // A press and release between two frames still counts as held for a frame.
        (Input::Key(k), Trigger::Held) => is_key_down(k) || is_key_pressed(k),
        (Input::Key(k), Trigger::Pressed) => is_key_pressed(k),
        (Input::Mouse(m), Trigger::Held) => is_mouse_button_down(m) || is_mouse_button_pressed(m),
        (Input::Mouse(m), Trigger::Pressed) => is_mouse_button_pressed(m),
        (Input::Wheel, _) => mouse_wheel().1 != 0.0,
    }
}

/// The pointer this frame (macroquad's input state).
pub fn read_pointer() -> Pointer {
    let (x, y) = mouse_position();
    Pointer {
        x,
        y,
        wheel: mouse_wheel().1,
    }
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
    #[test]
    fn labels_match_whatever_their_case_spaces_and_underscores() {
        let left = |l| super::by_label(l).map(|b| b.label).collect::<Vec<_>>();
        for label in ["left mouse", "LeftMouse", "left_mouse", "LEFT MOUSE"] {
            assert_eq!(left(label), ["left mouse"], "{label}");
        }
        assert_eq!(left("-"), ["-"]);
        assert!(left("leftmice").is_empty());
    }

    use super::*;

    #[test]
    fn readme_controls_table_matches_the_key_table() {
        let readme =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
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
    fn two_held_keys_spawn_at_random_and_the_help_states_their_rates() {
        let spawns: Vec<_> = BINDINGS
            .iter()
            .filter(|b| b.action.spawn_rate().is_some())
            .collect();
        assert!(spawns.len() >= 2);
        for b in spawns {
            assert_eq!(b.trigger, Trigger::Held, "{b:?}");
            let rate = b.action.spawn_rate().unwrap();
            assert!(b.help_text().ends_with(&format!("({rate}/s)")), "{b:?}");
        }
        assert!(
            help_lines().count() < BINDINGS.len(),
            "the arrows fold into one help line"
        );
    }

    #[test]
    fn every_label_names_its_bindings_for_press() {
        for b in BINDINGS {
            assert!(by_label(b.label).any(|o| o.input == b.input), "{b:?}");
            assert!(by_label(&b.label.to_uppercase()).count() >= 1);
        }
    }
}

//! The controls panel: sliders, choices, toggles and buttons for what the keys of the
//! controls table do, drawn with macroquad's immediate-mode `ui`. Each control names the key
//! that does the same (from the table), reads its value from the [`App`] every frame and
//! writes it back through the same setters the keys use.
//!
//! A scripted run sets a control with `--panel NAME=VALUE@FRAME`: the value goes into the
//! control's widget as if typed or clicked there, and on through the same path.

use macroquad::hash;
use macroquad::input::{is_mouse_button_down, MouseButton};
use macroquad::math::{vec2, Vec2};
use macroquad::ui::{root_ui, widgets, Ui};
use quadstress::{Placement, MAX_DEPTH};
use quadstress_sim::Broadphase;

use super::app::{App, ColorMode, WORLD};
use super::controls::{label_of, Action, Action as A, Binding};
use super::probe::{Shape, MAX_NEAREST};

/// The panel's width in pixels.
pub const WIDTH: f32 = 300.0;
/// Its height.
pub const HEIGHT: f32 = 382.0;
/// Gap between the panel and the window's right edge.
const MARGIN: f32 = 4.0;
/// Top edge: below the blue quad's report, so the two never overlap.
const TOP: f32 = 140.0;

/// What a control sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// Particles per second from the cursor.
    Stream,
    /// Spawn a batch of particles at random.
    Spawn,
    /// The world's size, and with it the particle cap.
    WorldScale,
    /// Worker threads of the simulation.
    Threads,
    /// Leaf capacity.
    Capacity,
    /// Depth limit.
    Depth,
    /// Exact or loose placement.
    Placement,
    /// The broad phase.
    Broadphase,
    /// The colouring.
    Colors,
    /// Node outlines.
    Outlines,
    /// Gravity.
    Gravity,
    /// Pause.
    Pause,
    /// One step while paused.
    Step,
    /// Remove every particle.
    Clear,
    /// The right-click query's shape.
    Query,
    /// Neighbours of the nearest query.
    Nearest,
}

/// The kind of widget, and the values it takes.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// A number in `min..=max`, whole numbers only when `whole`.
    Slider { min: f32, max: f32, whole: bool },
    /// One of the names.
    Choice(&'static [&'static str]),
    /// On or off.
    Toggle,
    /// A press.
    Button,
}

/// A control's value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// A slider's number.
    Number(f32),
    /// A choice's index.
    Choice(usize),
    /// A toggle's state.
    On(bool),
    /// Whether a button was pressed.
    Pressed(bool),
}

/// One row of the panel.
#[derive(Clone, Copy, Debug)]
pub struct Control {
    /// What it sets.
    pub field: Field,
    /// Its name in `--panel`.
    pub name: &'static str,
    /// Its caption.
    pub caption: &'static str,
    /// The keys that do the same, named from the controls table.
    pub keys: &'static [Action],
    /// Its widget.
    pub kind: Kind,
}

/// Leaf capacities the panel offers: the keys halve and double.
const CAPACITIES: &[&str] = &[
    "1", "2", "4", "8", "16", "32", "64", "128", "256", "512", "1024",
];
/// World scales the panel offers (`--world-scale` takes any from 0.25 to 4).
const WORLD_SCALES: &[&str] = &["0.5", "1", "1.5", "2", "3", "4"];
/// The batch the spawn button adds.
pub const SPAWN_BATCH: usize = 5_000;

const fn control(
    field: Field,
    name: &'static str,
    caption: &'static str,
    keys: &'static [Action],
    kind: Kind,
) -> Control {
    Control {
        field,
        name,
        caption,
        keys,
        kind,
    }
}

/// Every control, top to bottom.
#[rustfmt::skip]
pub const CONTROLS: &[Control] = &[
    control(Field::Stream,     "stream",     "stream /s",     &[A::SpawnRateDown, A::SpawnRateUp], Kind::Slider { min: 10.0, max: 20_000.0, whole: true }),
    control(Field::Spawn,      "spawn",      "spawn 5,000",   &[],                                 Kind::Button),
    control(Field::WorldScale, "world",      "world scale",   &[],                                 Kind::Choice(WORLD_SCALES)),
    control(Field::Threads,    "threads",    "threads",       &[],                                 Kind::Slider { min: 1.0, max: 16.0, whole: true }),
    control(Field::Capacity,   "capacity",   "leaf capacity", &[A::CapacityDown, A::CapacityUp],   Kind::Choice(CAPACITIES)),
    control(Field::Depth,      "depth",      "depth limit",   &[A::DepthDown, A::DepthUp],         Kind::Slider { min: 0.0, max: MAX_DEPTH as f32, whole: true }),
    control(Field::Placement,  "placement",  "placement",     &[A::TogglePlacement],               Kind::Choice(&["exact", "loose"])),
    control(Field::Broadphase, "broadphase", "broad phase",   &[A::CycleBroadphase],               Kind::Choice(&["incremental", "rebuild", "brute"])),
    control(Field::Colors,     "colors",     "colours",       &[A::CycleColors],                   Kind::Choice(&["depth", "speed", "contact"])),
    control(Field::Outlines,   "outlines",   "node outlines", &[A::ToggleOutlines],                Kind::Toggle),
    control(Field::Gravity,    "gravity",    "gravity",       &[A::ToggleGravity],                 Kind::Toggle),
    control(Field::Pause,      "pause",      "pause",         &[A::Pause],                         Kind::Toggle),
    control(Field::Step,       "step",       "single step",   &[A::Step],                          Kind::Button),
    control(Field::Clear,      "clear",      "clear",         &[A::Clear],                         Kind::Button),
    control(Field::Query,      "query",      "query",         &[A::CycleQuery],                    Kind::Choice(&["rectangle", "circle", "nearest"])),
    control(Field::Nearest,    "k",          "k nearest",     &[],                                 Kind::Slider { min: 1.0, max: MAX_NEAREST as f32, whole: true }),
];

impl Control {
    /// The control's current value in `app`.
    pub fn read(&self, app: &App) -> Value {
        let tree = app.sim.config().tree;
        match self.field {
            Field::Stream => Value::Number(app.cursor_rate()),
            Field::Capacity => Value::Choice(
                (usize::BITS - 1 - tree.leaf_capacity.max(1).leading_zeros()) as usize,
            ),
            Field::Depth => Value::Number(f32::from(tree.max_depth)),
            Field::Placement => Value::Choice(usize::from(tree.placement == Placement::Loose)),
            Field::Broadphase => Value::Choice(
                Broadphase::ALL
                    .iter()
                    .position(|&m| m == app.sim.broadphase())
                    .unwrap_or(0),
            ),
            Field::Colors => Value::Choice(app.display.colors as usize),
            Field::Outlines => Value::On(app.display.outlines),
            Field::Gravity => Value::On(app.sim.config().gravity_on),
            Field::Pause => Value::On(app.paused()),
            Field::Query => Value::Choice(app.probe.shape() as usize),
            Field::Nearest => Value::Number(app.probe.k() as f32),
            Field::WorldScale => {
                let scale = app.sim.config().world.width() / WORLD.width();
                let distance = |s: &&str| (s.parse::<f32>().unwrap_or(1.0) - scale).abs();
                Value::Choice(
                    (0..WORLD_SCALES.len())
                        .min_by(|&a, &b| {
                            distance(&WORLD_SCALES[a]).total_cmp(&distance(&WORLD_SCALES[b]))
                        })
                        .unwrap_or(1),
                )
            }
            Field::Threads => Value::Number(app.sim.threads() as f32),
            Field::Spawn | Field::Step | Field::Clear => Value::Pressed(false),
        }
    }

    /// Sets the control's value in `app`, through the setters the keys use.
    pub fn apply(&self, app: &mut App, value: Value) {
        let mut tree = app.sim.config().tree;
        match (self.field, value) {
            (Field::Stream, Value::Number(v)) => app.set_cursor_rate(v),
            (Field::WorldScale, Value::Choice(i)) => {
                let scale = WORLD_SCALES[i.min(WORLD_SCALES.len() - 1)];
                app.rescale_world(scale.parse().unwrap_or(1.0));
            }
            (Field::Threads, Value::Number(v)) => app.set_threads(v.max(1.0) as usize),
            (Field::Capacity, Value::Choice(i)) => {
                tree.leaf_capacity = 1 << i.min(CAPACITIES.len() - 1);
                app.set_tree(tree);
            }
            (Field::Depth, Value::Number(v)) => {
                tree.max_depth = v.clamp(0.0, f32::from(MAX_DEPTH)) as u8;
                app.set_tree(tree);
            }
            (Field::Placement, Value::Choice(i)) => {
                tree.placement = if i == 1 {
                    Placement::Loose
                } else {
                    Placement::Exact
                };
                app.set_tree(tree);
            }
            (Field::Broadphase, Value::Choice(i)) => {
                app.set_broadphase(Broadphase::ALL[i.min(Broadphase::ALL.len() - 1)]);
            }
            (Field::Colors, Value::Choice(i)) => {
                let all = [ColorMode::Depth, ColorMode::Speed, ColorMode::Contact];
                app.set_colors(all[i.min(all.len() - 1)]);
            }
            (Field::Outlines, Value::On(on)) => app.display.outlines = on,
            (Field::Gravity, Value::On(on)) => app.set_gravity(on),
            (Field::Pause, Value::On(on)) => app.set_paused(on),
            (Field::Query, Value::Choice(i)) => {
                let all = [Shape::Rect, Shape::Circle, Shape::Nearest];
                app.set_query(all[i.min(all.len() - 1)]);
            }
            (Field::Nearest, Value::Number(v)) => app.set_nearest_k(v as usize),
            (Field::Spawn, Value::Pressed(true)) => app.spawn_at_random(SPAWN_BATCH),
            (Field::Step, Value::Pressed(true)) => app.step_once(),
            (Field::Clear, Value::Pressed(true)) => app.clear(),
            _ => {}
        }
    }

    /// The value `text` names for this control (`--panel NAME=TEXT`): a number for a slider,
    /// a choice's name, `on` or `off`, nothing for a button.
    pub fn parse(&self, text: Option<&str>) -> Result<Value, String> {
        let name = self.name;
        match (self.kind, text) {
            (Kind::Button, None) => Ok(Value::Pressed(true)),
            (Kind::Button, Some(_)) => Err(format!("{name} is a button: it takes no value")),
            (_, None) => Err(format!("{name} needs a value: {name}=VALUE")),
            (Kind::Slider { min, max, .. }, Some(t)) => match t.trim().parse::<f32>() {
                Ok(v) if (min..=max).contains(&v) => Ok(Value::Number(v)),
                _ => Err(format!(
                    "{name} takes a number from {min} to {max}, got {t:?}"
                )),
            },
            (Kind::Choice(names), Some(t)) => names
                .iter()
                .position(|n| n.eq_ignore_ascii_case(t.trim()))
                .map(Value::Choice)
                .ok_or_else(|| format!("{name} is one of {}, got {t:?}", names.join(", "))),
            (Kind::Toggle, Some(t)) => match t.trim() {
                "on" => Ok(Value::On(true)),
                "off" => Ok(Value::On(false)),
                _ => Err(format!("{name} is on or off, got {t:?}")),
            },
        }
    }

    /// The caption with the keys that do the same, e.g. `gravity (G)`, `depth limit (- =)`.
    fn caption_with_key(&self, out: &mut String) {
        out.clear();
        out.push_str(self.caption);
        for (i, key) in self.keys.iter().filter_map(|&a| label_of(a)).enumerate() {
            out.push_str(if i == 0 { " (" } else { " " });
            out.push_str(key);
        }
        if !self.keys.is_empty() {
            out.push(')');
        }
    }

    /// Draws the control's widget holding `value`; the user's edits land in `value`.
    fn widget(&self, ui: &mut Ui, caption: &str, value: &mut Value) {
        let id = hash!(self.name);
        match (self.kind, value) {
            (Kind::Slider { min, max, whole }, Value::Number(v)) => {
                widgets::Slider::new(id, min..max)
                    .label(caption)
                    .label_width(140.0)
                    .ui(ui, v);
                if whole {
                    *v = v.round();
                }
            }
            (Kind::Choice(names), Value::Choice(i)) => {
                widgets::ComboBox::new(id, names)
                    .label(caption)
                    .ratio(0.45)
                    .ui(ui, i);
            }
            (Kind::Toggle, Value::On(on)) => widgets::Checkbox::new(id)
                .label(caption)
                .ratio(0.45)
                .ui(ui, on),
            (Kind::Button, Value::Pressed(p)) => *p = ui.button(None, caption),
            _ => {}
        }
    }
}

/// The control `--panel` names, case-insensitively.
pub fn by_name(name: &str) -> Option<&'static Control> {
    CONTROLS.iter().find(|c| c.name.eq_ignore_ascii_case(name))
}

/// A scripted setting: `NAME=VALUE`, or `NAME` for a button.
pub fn parse_setting(text: &str) -> Result<(&'static Control, Value), String> {
    let (name, value) = match text.split_once('=') {
        Some((n, v)) => (n, Some(v)),
        None => (text, None),
    };
    let control = by_name(name.trim()).ok_or_else(|| {
        let names: Vec<_> = CONTROLS.iter().map(|c| c.name).collect();
        format!(
            "no panel control named {name:?}; the controls are {}",
            names.join(", ")
        )
    })?;
    Ok((control, control.parse(value)?))
}

/// Where the panel is in a `width`-pixel-wide window: top-left corner.
pub fn position(width: f32) -> Vec2 {
    vec2((width - WIDTH - MARGIN).max(0.0), TOP)
}

/// Whether screen point `(x, y)` is over the panel, whose clicks are not the world's.
pub fn is_over(app: &App, x: f32, y: f32) -> bool {
    app.display.panel_shown() && root_ui().is_mouse_over(vec2(x, y))
}

/// Whether the panel, not the controls table, gets input `b` while the pointer is over the
/// panel (`over`): every input but Esc, which still closes what is open.
pub fn takes(b: &Binding, over: bool) -> bool {
    over && b.action != Action::Close
}

/// Takes the keyboard from the panel's text boxes (the pointer left the panel), unless a
/// slider is being dragged.
pub fn release_keyboard() {
    if !is_mouse_button_down(MouseButton::Left) {
        root_ui().clear_input_focus();
    }
}

/// Buffers kept from frame to frame.
#[derive(Default)]
pub struct PanelText {
    caption: String,
}

/// Shows the panel (when shown with the statistics panel) and applies the user's edits and the
/// `scripted` settings of this frame. A hidden panel still takes scripted settings.
pub fn show(
    app: &mut App,
    scripted: &[(&'static Control, Value)],
    screen_width: f32,
    text: &mut PanelText,
) {
    let scripted_value = |c: &Control| {
        scripted
            .iter()
            .find(|(s, _)| s.field == c.field)
            .map(|&(_, v)| v)
    };
    if !app.display.panel_shown() {
        for c in CONTROLS {
            if let Some(v) = scripted_value(c) {
                c.apply(app, v);
            }
        }
        return;
    }
    let mut ui = root_ui();
    let window = widgets::Window::new(
        hash!("controls panel"),
        position(screen_width),
        vec2(WIDTH, HEIGHT),
    )
    .label("controls (P: hide, H: keys)")
    .movable(false);
    let _ = window.ui(&mut ui, |ui| {
        for c in CONTROLS {
            let current = c.read(app);
            let mut value = scripted_value(c).unwrap_or(current);
            c.caption_with_key(&mut text.caption);
            c.widget(ui, &text.caption, &mut value);
            if value != current {
                c.apply(app, value);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::tests_support::test_app;

    #[test]
    fn every_control_parses_its_values_and_refuses_others() {
        assert!(matches!(
            parse_setting("capacity=64"),
            Ok((c, Value::Choice(6))) if c.field == Field::Capacity
        ));
        assert!(matches!(
            parse_setting("Gravity=off"),
            Ok((_, Value::On(false)))
        ));
        assert!(matches!(
            parse_setting("clear"),
            Ok((_, Value::Pressed(true)))
        ));
        assert!(matches!(
            parse_setting("query=circle"),
            Ok((_, Value::Choice(1)))
        ));
        for bad in [
            "capacity=3",
            "depth=11",
            "depth=nan",
            "gravity=yes",
            "clear=1",
            "stream",
            "nothing=1",
        ] {
            assert!(parse_setting(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_control_writes_what_it_reads() {
        let mut app = test_app();
        for c in CONTROLS {
            let before = c.read(&app);
            c.apply(&mut app, before);
            assert_eq!(c.read(&app), before, "{}", c.name);
        }
        let set = |app: &mut App, text: &str| {
            let (c, v) = parse_setting(text).unwrap();
            c.apply(app, v);
            c.read(app)
        };
        assert_eq!(set(&mut app, "capacity=64"), Value::Choice(6));
        assert_eq!(app.sim.config().tree.leaf_capacity, 64);
        assert_eq!(set(&mut app, "depth=4"), Value::Number(4.0));
        assert_eq!(set(&mut app, "placement=loose"), Value::Choice(1));
        assert_eq!(app.sim.config().tree.placement, Placement::Loose);
        assert_eq!(set(&mut app, "broadphase=rebuild"), Value::Choice(1));
        assert_eq!(set(&mut app, "colors=contact"), Value::Choice(2));
        assert_eq!(set(&mut app, "gravity=off"), Value::On(false));
        assert_eq!(set(&mut app, "pause=on"), Value::On(true));
        assert_eq!(set(&mut app, "query=nearest"), Value::Choice(2));
        assert_eq!(set(&mut app, "k=7"), Value::Number(7.0));
        assert_eq!(set(&mut app, "threads=3"), Value::Number(3.0));
        assert_eq!(app.sim.threads(), 3);
        set(&mut app, "spawn");
        assert_eq!(set(&mut app, "world=2"), Value::Choice(3));
        assert_eq!(app.sim.config().world.width(), 2.0 * WORLD.width());
        assert!(app.sim.is_empty(), "a new world starts empty");
        assert_eq!(app.probe.shape(), Shape::Nearest, "the query is kept");
        assert_eq!(app.probe.k(), 7);
        set(&mut app, "spawn");
        assert_eq!(app.sim.len(), SPAWN_BATCH);
        set(&mut app, "clear");
        assert!(app.sim.is_empty());
    }

    #[test]
    fn over_the_panel_only_esc_reaches_the_controls_table() {
        use crate::controls::BINDINGS;
        for b in BINDINGS {
            assert!(!takes(b, false), "{:?}", b.action);
            assert_eq!(takes(b, true), b.action != Action::Close, "{:?}", b.action);
        }
    }

    #[test]
    fn every_control_with_a_key_names_a_key_of_the_table() {
        let mut caption = String::new();
        for c in CONTROLS {
            c.caption_with_key(&mut caption);
            for &action in c.keys {
                let key = label_of(action).unwrap();
                assert!(caption.contains(key), "{caption} names no {key}");
            }
        }
        let depth = by_name("depth").unwrap();
        depth.caption_with_key(&mut caption);
        assert_eq!(caption, "depth limit (- =)");
    }
}

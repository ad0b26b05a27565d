//! The controls panel's table: every control, its name in `--panel`, its caption, the keys
//! that do the same (from the controls table) and the values its widget takes. The panel
//! (`panel.rs`) draws it; the app (`app.rs`) reads and applies its values; `--panel` parses
//! them here.

use quadstress::{MAX_DEPTH, MAX_LEAF_CAPACITY};
use quadstress_sim::MAX_THREADS;

use crate::input::controls::{label_of, Action, Action as A};
use crate::settings::{MAX_NEAREST, MAX_WORLD_SCALE, MIN_WORLD_SCALE};

/// A whole number from `min` to `max`, stepped by `step`.
const fn whole(min: f32, max: f32, step: Step) -> Kind {
    Kind::Number {
        min,
        max,
        whole: true,
        step,
    }
}

/// What a control sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// Particles per second from the cursor.
    Stream,
    /// How many particles the spawn button adds.
    SpawnCount,
    /// Spawn [`SpawnCount`](Field::SpawnCount) particles at random.
    Spawn,
    /// The count at which held spawn inputs stop (0: at the cap).
    StopAt,
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
    /// Start or stop the ramp.
    Ramp,
    /// The right-click query's shape.
    Query,
    /// Neighbours of the nearest query.
    Nearest,
}

/// How the `-` and `+` of a number change it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Step {
    /// To the next multiple of this below or above.
    Add(f32),
    /// Divided or multiplied by this (the keys that halve and double).
    Times(f32),
}

/// The kind of widget, and the values it takes.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// A number in `min..=max`, whole numbers only when `whole`: typed into its box (Enter
    /// applies it) or changed a step at a time with `-` and `+`.
    Number {
        min: f32,
        max: f32,
        whole: bool,
        step: Step,
    },
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
    /// A number's value.
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

/// The batch the spawn button adds until another count is typed.
pub const SPAWN_BATCH: usize = 5_000;
/// The largest count the panel takes: the cap of the largest world (scale 4).
pub const MAX_COUNT: f32 = 1_504_051.0;

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
    control(Field::Stream,     "stream",     "stream /s",     &[A::SpawnRateDown, A::SpawnRateUp], whole(10.0, 50_000.0, Step::Times(1.5))),
    control(Field::SpawnCount, "count",      "spawn count",   &[],                                 whole(1.0, MAX_COUNT, Step::Times(2.0))),
    control(Field::Spawn,      "spawn",      "spawn the count", &[],                               Kind::Button),
    control(Field::StopAt,     "stop",       "held: stop at", &[A::SpawnTrickle, A::SpawnFlood],  whole(0.0, MAX_COUNT, Step::Add(1000.0))),
    control(Field::WorldScale, "world",      "world scale",   &[],                                 Kind::Number { min: MIN_WORLD_SCALE, max: MAX_WORLD_SCALE, whole: false, step: Step::Add(0.25) }),
    control(Field::Threads,    "threads",    "threads",       &[],                                 whole(1.0, MAX_THREADS as f32, Step::Add(1.0))),
    control(Field::Capacity,   "capacity",   "leaf capacity", &[A::CapacityDown, A::CapacityUp],   whole(1.0, MAX_LEAF_CAPACITY as f32, Step::Times(2.0))),
    control(Field::Depth,      "depth",      "depth limit",   &[A::DepthDown, A::DepthUp],         whole(0.0, MAX_DEPTH as f32, Step::Add(1.0))),
    control(Field::Placement,  "placement",  "placement",     &[A::TogglePlacement],               Kind::Choice(&["exact", "loose"])),
    control(Field::Broadphase, "broadphase", "broad phase",   &[A::CycleBroadphase],               Kind::Choice(&["incremental", "rebuild", "brute"])),
    control(Field::Colors,     "colors",     "colours",       &[A::CycleColors],                   Kind::Choice(&["depth", "speed", "contact"])),
    control(Field::Outlines,   "outlines",   "node outlines", &[A::ToggleOutlines],                Kind::Choice(&["all", "leaves", "off"])),
    control(Field::Gravity,    "gravity",    "gravity",       &[A::ToggleGravity],                 Kind::Toggle),
    control(Field::Pause,      "pause",      "pause",         &[A::Pause],                         Kind::Toggle),
    control(Field::Step,       "step",       "single step",   &[A::Step],                          Kind::Button),
    control(Field::Clear,      "clear",      "clear",         &[A::Clear],                         Kind::Button),
    control(Field::Ramp,       "ramp",       "ramp to 60 FPS", &[A::Ramp],                         Kind::Button),
    control(Field::Query,      "query",      "query",         &[A::CycleQuery],                    Kind::Choice(&["rectangle", "circle", "nearest"])),
    control(Field::Nearest,    "k",          "k nearest",     &[],                                 whole(1.0, MAX_NEAREST as f32, Step::Times(2.0))),
];

impl Kind {
    /// `v` as the panel shows it: a whole number without decimals, another in as few
    /// digits as tell it apart (1.2, 0.25).
    pub fn format(&self, v: f32, out: &mut String) {
        use std::fmt::Write as _;
        out.clear();
        let _ = match self {
            Kind::Number { whole: true, .. } => write!(out, "{v:.0}"),
            _ => write!(out, "{v}"),
        };
    }

    /// The value one step down (`up` false) or up from `v`, within the range.
    pub fn step(&self, v: f32, up: bool) -> f32 {
        let Kind::Number {
            min,
            max,
            whole,
            step,
        } = *self
        else {
            return v;
        };
        let next = match (step, up) {
            (Step::Times(k), true) => v * k,
            (Step::Times(k), false) => v / k,
            // The next multiple of the step: 1.2 goes to 1.0 or 1.25.
            (Step::Add(s), true) => ((v / s).floor() + 1.0) * s,
            (Step::Add(s), false) => ((v / s).ceil() - 1.0) * s,
        };
        let next = if whole { next.round() } else { next };
        next.clamp(min, max)
    }
}

impl Control {
    /// The value `text` names for this control (`--panel NAME=TEXT`): a number for a slider,
    /// a choice's name, `on` or `off`, nothing for a button.
    pub fn parse(&self, text: Option<&str>) -> Result<Value, String> {
        let name = self.name;
        match (self.kind, text) {
            (Kind::Button, None) => Ok(Value::Pressed(true)),
            (Kind::Button, Some(_)) => Err(format!("{name} is a button: it takes no value")),
            (_, None) => Err(format!("{name} needs a value: {name}=VALUE")),
            (
                Kind::Number {
                    min, max, whole, ..
                },
                Some(t),
            ) => {
                let what = if whole { "a whole number" } else { "a number" };
                match t.trim().parse::<f32>() {
                    Ok(v) if (min..=max).contains(&v) && (!whole || v.fract() == 0.0) => {
                        Ok(Value::Number(v))
                    }
                    _ => Err(format!(
                        "{name} takes {what} from {min} to {max}, got {t:?}"
                    )),
                }
            }
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
    pub fn caption_with_key(&self, out: &mut String) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_control_parses_its_values_and_refuses_others() {
        assert!(matches!(
            parse_setting("capacity=48"),
            Ok((c, Value::Number(48.0))) if c.field == Field::Capacity
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
        assert!(matches!(
            parse_setting("world=1.2"),
            Ok((_, Value::Number(v))) if v == 1.2
        ));
        for bad in [
            "capacity=0",
            "capacity=1048577",
            "capacity=2.5",
            "threads=2.5",
            "k=1.5",
            "world=5",
            "world=0.1",
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

    /// The typed counts refuse what is not a count, each with the range it takes.
    #[test]
    fn typed_counts_refuse_bad_input_with_the_range() {
        assert!(matches!(
            parse_setting("count=1234"),
            Ok((c, Value::Number(1234.0))) if c.field == Field::SpawnCount
        ));
        assert!(matches!(
            parse_setting("stop=0"),
            Ok((_, Value::Number(0.0)))
        ));
        for bad in [
            "count=",
            "count",
            "count=-5",
            "count=0",
            "count=abc",
            "count=12x",
            "count=1e30",
            "count=inf",
            "count=NaN",
            "count=2.5",
            "count=1504052",
            "stop=-1",
            "stop=",
            "stop=99999999999",
        ] {
            let e = parse_setting(bad).unwrap_err();
            assert!(
                e.contains("needs a value") || e.contains("takes a whole number from"),
                "{bad}: {e}"
            );
        }
    }

    /// The largest count is the cap of the largest world.
    #[test]
    fn the_largest_count_is_the_largest_worlds_cap() {
        use crate::settings::{particle_cap_of, scaled_world};
        assert_eq!(
            MAX_COUNT as usize,
            particle_cap_of(scaled_world(MAX_WORLD_SCALE))
        );
    }

    #[test]
    fn a_fraction_for_a_whole_number_is_refused_with_its_reason() {
        let e = parse_setting("threads=2.5").unwrap_err();
        assert!(e.contains("whole number"), "{e}");
    }

    #[test]
    fn numbers_show_without_needless_decimals_and_step_within_their_range() {
        let mut s = String::new();
        let capacity = by_name("capacity").unwrap().kind;
        let world = by_name("world").unwrap().kind;
        capacity.format(48.0, &mut s);
        assert_eq!(s, "48");
        world.format(1.2, &mut s);
        assert_eq!(s, "1.2");
        assert_eq!(capacity.step(48.0, true), 96.0);
        assert_eq!(capacity.step(1.0, false), 1.0);
        assert_eq!(
            capacity.step(MAX_LEAF_CAPACITY as f32, true),
            MAX_LEAF_CAPACITY as f32
        );
        assert_eq!(world.step(1.2, true), 1.25);
        assert_eq!(world.step(1.2, false), 1.0);
        assert_eq!(world.step(1.0, false), 0.75);
        assert_eq!(world.step(MAX_WORLD_SCALE, true), MAX_WORLD_SCALE);
        let depth = by_name("depth").unwrap().kind;
        assert_eq!(depth.step(0.0, false), 0.0);
        assert_eq!(depth.step(5.0, true), 6.0);
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

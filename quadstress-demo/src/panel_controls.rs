//! The controls panel's table: every control, its name in `--panel`, its caption, the keys
//! that do the same (from the controls table) and the values its widget takes. The panel
//! (`panel.rs`) draws it; the app (`app.rs`) reads and applies its values; `--panel` parses
//! them here.

use quadstress::MAX_DEPTH;

use super::controls::{label_of, Action, Action as A};
use super::settings::MAX_NEAREST;

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
pub const CAPACITIES: &[&str] = &[
    "1", "2", "4", "8", "16", "32", "64", "128", "256", "512", "1024",
];
/// World scales the panel offers (`--world-scale` takes any from 0.25 to 4).
pub const WORLD_SCALES: &[&str] = &["0.5", "1", "1.5", "2", "3", "4"];
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

//! The controls panel: sliders, choices, toggles and buttons for what the keys of the
//! controls table do, drawn with macroquad's immediate-mode `ui`. Each control names the key
//! that does the same (from the table), reads its value from the [`App`] every frame and
//! writes it back through the same setters the keys use.
//!
//! A scripted run sets a control with `--panel NAME=VALUE@FRAME`: the value goes into the
//! control's widget as if typed or clicked there, and on through the same path.

use macroquad::hash;
use macroquad::input::{is_key_pressed, is_mouse_button_down, KeyCode, MouseButton};
use macroquad::math::{vec2, Vec2};
use macroquad::ui::{root_ui, widgets, Ui};

use super::app::App;
use super::controls::{Action, Binding};
use super::panel_controls::{Control, Field, Kind, Value, CONTROLS};

/// The panel's width in pixels.
pub const WIDTH: f32 = 300.0;
/// Its height.
pub const HEIGHT: f32 = 404.0;
/// Gap between the panel and the window's right edge.
const MARGIN: f32 = 4.0;
/// Top edge: below the blue quad's report, so the two never overlap.
const TOP: f32 = 140.0;

/// Sizes of a number's `-` and `+` and of its box, and of a toggle's button.
const STEP_BUTTON: Vec2 = Vec2::new(22.0, 20.0);
const NUMBER_BOX: Vec2 = Vec2::new(76.0, 20.0);
const TOGGLE_BUTTON: Vec2 = Vec2::new(50.0, 20.0);

/// Draws control `c`'s widget holding `value`; the user's edits land in `value`. A number
/// typed into its box applies on Enter; a typed value the control refuses comes back as the
/// reason.
fn widget(c: &Control, ui: &mut Ui, text: &mut PanelText, value: &mut Value) -> Option<String> {
    let id = hash!(c.name);
    match (c.kind, value) {
        (kind @ Kind::Number { whole, .. }, Value::Number(v)) => {
            if widgets::Button::new("-").size(STEP_BUTTON).ui(ui) {
                *v = kind.step(*v, false);
            }
            ui.same_line(0.0);
            // The box shows the value unless the user is typing into it.
            let editing = text.editing == Some(c.field);
            if !editing {
                kind.format(*v, &mut text.number);
            }
            let digits = |ch: char| ch.is_ascii_digit() || (!whole && ch == '.');
            let typed = widgets::Editbox::new(hash!(c.name, "box"), NUMBER_BOX)
                .multiline(false)
                .filter(&digits)
                .ui(ui, &mut text.number);
            if typed {
                text.editing = Some(c.field);
            }
            ui.same_line(0.0);
            if widgets::Button::new("+").size(STEP_BUTTON).ui(ui) {
                *v = kind.step(*v, true);
                text.editing = None;
            }
            ui.same_line(0.0);
            ui.label(None, &text.caption);
            if text.editing == Some(c.field) && is_key_pressed(KeyCode::Enter) {
                text.editing = None;
                match c.parse(Some(&text.number)) {
                    Ok(Value::Number(n)) => *v = n,
                    Ok(_) => {}
                    Err(e) => return Some(e),
                }
            }
        }
        (Kind::Choice(names), Value::Choice(i)) => {
            // A value outside the names would index past them inside the combo box.
            *i = (*i).min(names.len() - 1);
            widgets::ComboBox::new(id, names)
                .label(&text.caption)
                .ratio(0.45)
                .ui(ui, i);
        }
        (Kind::Toggle, Value::On(on)) => {
            // The state in words, not only in a shade.
            let state = if *on { "ON" } else { "off" };
            if widgets::Button::new(state)
                .size(TOGGLE_BUTTON)
                .selected(*on)
                .ui(ui)
            {
                *on = !*on;
            }
            ui.same_line(0.0);
            ui.label(None, &text.caption);
        }
        // A scripted press stays pressed whatever the button says this frame.
        (Kind::Button, Value::Pressed(p)) => *p |= ui.button(None, text.caption.as_str()),
        _ => {}
    }
    None
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
    /// The text of the number box being drawn, or being typed into.
    number: String,
    /// The control whose number the user is typing (applied on Enter).
    editing: Option<Field>,
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
                app.apply(c, v);
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
            let current = app.read(c);
            let mut value = scripted_value(c).unwrap_or(current);
            c.caption_with_key(&mut text.caption);
            if let Some(refused) = widget(c, ui, text, &mut value) {
                app.say(format_args!("{refused}"));
            }
            if value != current {
                app.apply(c, value);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn over_the_panel_only_esc_reaches_the_controls_table() {
        use crate::controls::BINDINGS;
        for b in BINDINGS {
            assert!(!takes(b, false), "{:?}", b.action);
            assert_eq!(takes(b, true), b.action != Action::Close, "{:?}", b.action);
        }
    }
}

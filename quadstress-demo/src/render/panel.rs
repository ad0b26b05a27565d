//! The controls panel: sliders, choices, toggles and buttons for what the keys of the
//! controls table do, drawn with macroquad's immediate-mode `ui`. Each control names the key
//! that does the same (from the table), reads its value from the [`App`] every frame and
//! writes it back through the same setters the keys use.
//!
//! A scripted run sets a control with `--panel NAME=VALUE@FRAME`: the value goes into the
//! control's widget as if typed or clicked there, and on through the same path.

use macroquad::color::Color;
use macroquad::hash;
use macroquad::input::{is_key_pressed, is_mouse_button_down, KeyCode, MouseButton};
use macroquad::math::{vec2, RectOffset, Vec2};
use macroquad::ui::{root_ui, widgets, Skin, Ui};

use crate::input::controls::{Action, Binding};
use crate::settings::panel_controls::{Control, Field, Kind, Value, CONTROLS};
use crate::settings::{is_small_window, ui_scale};
use crate::state::app::App;

/// The panel's width in pixels.
pub const WIDTH: f32 = 300.0;
/// Its height.
pub const HEIGHT: f32 = 448.0;
/// Gap between the panel and the window's right edge.
const MARGIN: f32 = 4.0;
/// Top edge: below the blue quad's report, so the two never overlap.
const TOP: f32 = 140.0;

/// Sizes of a number's `-` and `+` and of its box, and of a toggle's button (at scale 1).
const STEP_BUTTON: Vec2 = Vec2::new(22.0, 20.0);
const NUMBER_BOX: Vec2 = Vec2::new(76.0, 20.0);
const TOGGLE_BUTTON: Vec2 = Vec2::new(50.0, 20.0);

/// macroquad's default skin with its fonts, margins and title bar `scale` times larger (its
/// colours, without the combo box's arrow image, which does not scale).
fn scaled_skin(ui: &Ui, scale: f32) -> Skin {
    let font = (16.0 * scale).round() as u16;
    let rgba = |r, g, b, a| Color::from_rgba(r, g, b, a);
    let m = 2.0 * scale;
    let margin = RectOffset::new(m, m, m, m);
    let style = || ui.style_builder().font_size(font);
    Skin {
        label_style: style()
            .margin(margin)
            .text_color(rgba(0, 0, 0, 255))
            .color_inactive(rgba(0, 0, 0, 128))
            .build(),
        button_style: style()
            .margin(margin)
            .color(rgba(204, 204, 204, 235))
            .color_clicked(rgba(187, 187, 187, 255))
            .color_hovered(rgba(170, 170, 170, 235))
            .color_selected(rgba(150, 150, 150, 255))
            .color_selected_hovered(rgba(140, 140, 140, 255))
            .text_color(rgba(0, 0, 0, 255))
            .build(),
        combobox_style: style()
            .margin(margin)
            .color_inactive(rgba(238, 238, 238, 128))
            .text_color(rgba(0, 0, 0, 255))
            .color(rgba(220, 220, 220, 255))
            .build(),
        editbox_style: style()
            .text_color(rgba(0, 0, 0, 255))
            .color_selected(rgba(200, 200, 200, 255))
            .build(),
        window_titlebar_style: style()
            .color(rgba(68, 68, 68, 255))
            .color_inactive(rgba(102, 102, 102, 127))
            .text_color(rgba(0, 0, 0, 255))
            .build(),
        margin: m,
        title_height: 14.0 * scale,
        ..ui.default_skin()
    }
}

/// Draws control `c`'s widget holding `value`; the user's edits land in `value`. A number
/// typed into its box applies on Enter; a typed value the control refuses comes back as the
/// reason.
fn widget(
    c: &Control,
    ui: &mut Ui,
    text: &mut PanelText,
    value: &mut Value,
    scale: f32,
) -> Option<String> {
    let id = hash!(c.name);
    match (c.kind, value) {
        (kind @ Kind::Number { whole, .. }, Value::Number(v)) => {
            if widgets::Button::new("-").size(STEP_BUTTON * scale).ui(ui) {
                *v = kind.step(*v, false);
            }
            ui.same_line(0.0);
            // The box shows the value unless the user is typing into it.
            let editing = text.editing == Some(c.field);
            if !editing {
                kind.format(*v, &mut text.number);
            }
            let digits = |ch: char| ch.is_ascii_digit() || (!whole && ch == '.');
            let typed = widgets::Editbox::new(hash!(c.name, "box"), NUMBER_BOX * scale)
                .multiline(false)
                .filter(&digits)
                .ui(ui, &mut text.number);
            if typed {
                text.editing = Some(c.field);
            }
            ui.same_line(0.0);
            if widgets::Button::new("+").size(STEP_BUTTON * scale).ui(ui) {
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
                .size(TOGGLE_BUTTON * scale)
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

/// The top of the panel in a small window: below the blue quad's report at the small text.
const SMALL_TOP: f32 = 124.0;
/// The panel's scales in a small window, largest first: a font of 12, 10 or 8 pixels (a few,
/// so the font atlas holds their glyphs before the first frame).
pub const SMALL_SCALES: [f32; 3] = [0.75, 0.625, 0.5];

/// How large the panel is drawn in a `width` x `height` window: with the text in a normal
/// window; in a small one, the largest of [`SMALL_SCALES`] that fits under the blue quad's
/// report (at full size it covered half of a 640x480 window, the report and the quad).
pub fn scale(width: f32, height: f32) -> f32 {
    if !is_small_window(width, height) {
        return ui_scale(width, height);
    }
    let room = height - SMALL_TOP - MARGIN;
    SMALL_SCALES
        .into_iter()
        .find(|s| HEIGHT * s <= room)
        .unwrap_or(SMALL_SCALES[SMALL_SCALES.len() - 1])
}

/// The panel's top-left corner and size in a `width` x `height` window: at the right edge,
/// below the blue quad's report where the window is tall enough, scaled with the text; in a
/// small window, smaller and docked at the bottom right, clear of the report above it and of
/// the world's middle, where the blue quad starts.
pub fn layout(width: f32, height: f32) -> (Vec2, Vec2) {
    let s = scale(width, height);
    let mut size = vec2(WIDTH, HEIGHT) * s;
    let top = if is_small_window(width, height) {
        // All the room under the report: the choices' rows do not shrink with the font.
        size.y = size.y.max(height - SMALL_TOP - MARGIN).min(HEIGHT);
        (height - size.y - MARGIN).max(0.0)
    } else {
        (TOP * s).min(height - size.y - MARGIN).max(0.0)
    };
    (vec2((width - size.x - MARGIN).max(0.0), top), size)
}

/// The panel's bottom edge in a `width` x `height` window.
pub fn bottom(width: f32, height: f32) -> f32 {
    let (at, size) = layout(width, height);
    at.y + size.y
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
    /// The skin for the panel at a scale above 1, made when the scale changes.
    skin: Option<(f32, Skin)>,
}

/// Shows the panel (when shown with the statistics panel) and applies the user's edits and the
/// `scripted` settings of this frame. A hidden panel still takes scripted settings.
pub fn show(
    app: &mut App,
    scripted: &[(&'static Control, Value)],
    (screen_width, screen_height): (f32, f32),
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
    let (at, size) = layout(screen_width, screen_height);
    let scale = scale(screen_width, screen_height);
    if scale != 1.0 {
        if text.skin.as_ref().is_none_or(|(s, _)| *s != scale) {
            text.skin = Some((scale, scaled_skin(&ui, scale)));
        }
        if let Some((_, skin)) = &text.skin {
            ui.push_skin(skin);
        }
    }
    // One window per scale: macroquad lays a window's rows out in the width it was made with.
    let id = hash!("controls panel", (scale * 16.0) as u32);
    let window = widgets::Window::new(id, at, size)
        .label("controls (P: hide, H: keys)")
        .movable(false);
    let _ = window.ui(&mut ui, |ui| {
        for c in CONTROLS {
            let current = app.read(c);
            let mut value = scripted_value(c).unwrap_or(current);
            c.caption_with_key(&mut text.caption);
            if let Some(refused) = widget(c, ui, text, &mut value, scale) {
                app.say(format_args!("{refused}"));
            }
            if value != current {
                app.apply(c, value);
            }
        }
    });
    if scale != 1.0 && text.skin.is_some() {
        ui.pop_skin();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn over_the_panel_only_esc_reaches_the_controls_table() {
        use crate::input::controls::BINDINGS;
        for b in BINDINGS {
            assert!(!takes(b, false), "{:?}", b.action);
            assert_eq!(takes(b, true), b.action != Action::Close, "{:?}", b.action);
        }
    }
}

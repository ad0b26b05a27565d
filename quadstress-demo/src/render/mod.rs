//! The render layer: the palette, the scene and its two painters (CPU canvas, instanced GPU),
//! the cached overlay, the raw OpenGL (`gl`, the one module allowed `unsafe`), the HUD and
//! panel drawing, the ramp's curve, and the frame loop (`window`).

pub mod canvas;
pub mod draw;
#[allow(unsafe_code)]
pub mod gl;
pub mod instanced;
pub mod overlay;
pub mod palette;
pub mod panel;
pub mod ramp_view;
pub mod scene;
pub mod window;

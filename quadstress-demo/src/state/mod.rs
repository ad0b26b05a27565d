//! The state layer: the app and what it owns (the blue probe, the camera and view, the
//! profile, the stepper that runs steps beside the drawing), the scripted run, and the ramp
//! (its run, its window-side driver, its plot files).

pub mod app;
pub mod plot;
pub mod probe;
pub mod profile;
pub mod ramp;
pub mod ramp_window;
pub mod script;
pub mod stepper;
pub mod view;

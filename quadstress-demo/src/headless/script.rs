//! The window's scripted input in the headless mode: `--press`, `--panel` and `--pointer` do
//! what they do in the window, through the same [`Script`] and the same [`App`] actions, on
//! the headless simulation. Inputs that only change what is drawn (colours, outlines, the
//! panels, the camera, the blue quad, the ramp) are refused: headless draws nothing.
//!
//! The app is the window's, built once; each scripted frame it takes the headless simulation
//! in, acts, and hands it back, so the headless loop keeps stepping its own.

use quadstress_sim::{FixedStep, Simulation, DEFAULT_MAX_STEPS_PER_FRAME};

use crate::input::controls::{by_label, Action, Pointer};
use crate::input::platform::now_seconds;
use crate::settings::cli::Args;
use crate::settings::panel_controls::Field;
use crate::state::app::App;
use crate::state::script::Script;
use crate::state::stepper::SimSlot;
use crate::state::view::{Camera, View};

/// Whether a headless run does what `action` does: it changes the simulation.
fn changes_the_simulation(action: Action) -> bool {
    use Action as A;
    matches!(
        action,
        A::SpawnTrickle
            | A::SpawnFlood
            | A::SpawnAtCursor
            | A::SpawnRateDown
            | A::SpawnRateUp
            | A::Pause
            | A::Step
            | A::Clear
            | A::ToggleGravity
            | A::CycleBroadphase
            | A::CapacityDown
            | A::CapacityUp
            | A::DepthDown
            | A::DepthUp
            | A::TogglePlacement
    )
}

/// Whether a headless run does what panel control `field` does.
fn field_changes_the_simulation(field: Field) -> bool {
    use Field as F;
    matches!(
        field,
        F::Stream
            | F::SpawnCount
            | F::Spawn
            | F::StopAt
            | F::Threads
            | F::Capacity
            | F::Depth
            | F::Placement
            | F::Broadphase
            | F::Gravity
            | F::Pause
            | F::Step
            | F::Clear
    )
}

/// The headless run's scripted input.
pub struct HeadlessScript {
    script: Script,
    app: App,
    /// The pointer at `--pointer`, in the app's view of the world at one pixel a unit.
    pointer: Option<(f32, f32)>,
    dt: f32,
}

impl HeadlessScript {
    /// The scripted input `args` give a headless run, `None` when there is none.
    ///
    /// # Errors
    /// A message for an input a headless run cannot honour, or a `--pointer` with nothing
    /// scripted to use it.
    pub fn new(args: &Args) -> Result<Option<Self>, String> {
        for (label, _) in &args.press {
            if let Some(b) = by_label(label).find(|b| !changes_the_simulation(b.action)) {
                return Err(format!(
                    "--press {label}: \"{}\" changes only what a window shows; headless takes \
                     the inputs that change the simulation (spawning, pause, step, clear, \
                     gravity, broad phase, tree settings)",
                    b.help
                ));
            }
        }
        for (control, _, _) in &args.panel {
            if !field_changes_the_simulation(control.field) {
                return Err(format!(
                    "--panel {}: \"{}\" changes only what a window shows (headless, \
                     --coverage sizes the world)",
                    control.name, control.caption
                ));
            }
        }
        if args.press.is_empty() && args.panel.is_empty() {
            return match args.pointer {
                Some(_) => Err(
                    "--pointer places the cursor of scripted input: add a --press \
                                such as LeftMouse@1"
                        .to_owned(),
                ),
                None => Ok(None),
            };
        }
        let mut app = App::new(
            args.tree_config(),
            false,
            args.seed,
            args.broadphase.into(),
            args.threads,
            now_seconds,
        )
        .map_err(|e| e.to_string())?;
        // Held spawn inputs spawn per step of the app's fixed step: headless steps `--dt`.
        app.fixed =
            FixedStep::new(args.dt, DEFAULT_MAX_STEPS_PER_FRAME).map_err(|e| e.to_string())?;
        Ok(Some(HeadlessScript {
            script: Script::new(args),
            app,
            pointer: args.pointer,
            dt: args.dt,
        }))
    }

    /// Runs the next frame's scripted input on `sim` (before the frame's step) and hands it
    /// back with the steps the frame runs: 1, or 0 while the input paused the simulation
    /// (and no single step was asked), as in a scripted window.
    pub fn frame(&mut self, sim: Box<Simulation>) -> (Box<Simulation>, u32) {
        let world = sim.config().world;
        *self.app.sim_slot() = SimSlot::Home(sim);
        // The world at one pixel a unit: a pointer's screen place is its world place.
        let view = View::new(world, world.width(), world.height(), Camera::default());
        let (x, y) = self.pointer.unwrap_or(world.center());
        let (sx, sy) = view.to_screen(x, y);
        let pointer = Pointer {
            x: sx,
            y: sy,
            wheel: 0.0,
        };
        self.script.next_frame();
        self.script.press(&mut self.app, self.dt, &view, pointer);
        for &(control, value) in self.script.panel_settings() {
            self.app.apply(control, value);
        }
        let steps = self.app.begin_frame(f64::from(self.dt), true);
        match std::mem::replace(self.app.sim_slot(), SimSlot::Stepping) {
            SimSlot::Home(sim) => (sim, steps),
            SimSlot::Stepping => unreachable!("the simulation was put in above"),
        }
    }
}

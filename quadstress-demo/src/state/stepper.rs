//! The window's simulation steps, run in line or beside the drawing.
//!
//! [`Stepper`] can run a frame's fixed steps (counted by [`quadstress_sim::FixedStep`]) on a
//! worker thread while the main thread hands the frame to OpenGL: the simulation never reads
//! the time, so the particles are the same bits as when stepped in line.

use quadstress_sim::{PhaseTimes, Simulation};

use crate::input::platform::{now_seconds, Clock};

/// Where the simulation is: at home in the app, or away on the step thread while a frame's
/// steps run beside the drawing. Nothing can read it while it is away: [`get`](Self::get)
/// says so loudly instead of handing out an empty simulation.
pub enum SimSlot {
    /// In the app, to read and change.
    Home(Box<Simulation>),
    /// On the step thread, between [`Stepper::start`] and [`Stepper::finish`] (a page has
    /// one thread: there it never leaves).
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    Stepping,
}

impl SimSlot {
    /// The simulation.
    ///
    /// # Panics
    /// While it is [`Stepping`](Self::Stepping): reading it then is a bug of the frame loop.
    pub fn get(&self) -> &Simulation {
        match self {
            SimSlot::Home(sim) => sim,
            SimSlot::Stepping => panic!("the simulation is read while its steps run"),
        }
    }

    /// The simulation, to change.
    ///
    /// # Panics
    /// While it is [`Stepping`](Self::Stepping).
    pub fn get_mut(&mut self) -> &mut Simulation {
        match self {
            SimSlot::Home(sim) => sim,
            SimSlot::Stepping => panic!("the simulation is changed while its steps run"),
        }
    }
}

/// The steps of one frame, as they come back.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stepped {
    /// The last step's phases, when a step was taken.
    pub times: Option<PhaseTimes>,
}

#[cfg(not(target_arch = "wasm32"))]
struct Job {
    sim: Box<Simulation>,
    steps: u32,
    dt: f32,
}

#[cfg(not(target_arch = "wasm32"))]
struct Done {
    sim: Box<Simulation>,
    stepped: Stepped,
}

/// Runs `steps` steps of `dt` seconds on `sim`, timing them with `clock`.
pub fn run_steps(sim: &mut Simulation, steps: u32, dt: f32, clock: Clock) -> Stepped {
    let mut times = None;
    for _ in 0..steps {
        match sim.step_timed(dt, clock) {
            Ok(t) => times = Some(t),
            Err(_) => break,
        }
    }
    Stepped { times }
}

/// Runs a frame's steps beside the drawing (on the desktop) or in line (in a page, which
/// has one thread, and when overlapping is off).
pub struct Stepper {
    #[cfg(not(target_arch = "wasm32"))]
    worker: Option<Worker>,
    /// Whether steps are running on the worker.
    in_flight: bool,
    /// What the last steps run in line did.
    done_in_line: Stepped,
}

#[cfg(not(target_arch = "wasm32"))]
struct Worker {
    jobs: std::sync::mpsc::SyncSender<Job>,
    done: std::sync::mpsc::Receiver<Done>,
}

impl Stepper {
    /// A stepper; with `overlap` (and threads) the steps run on a worker thread.
    pub fn new(overlap: bool) -> Self {
        #[cfg(not(target_arch = "wasm32"))]
        let worker = overlap.then(|| {
            let (jobs, job_rx) = std::sync::mpsc::sync_channel::<Job>(1);
            let (done_tx, done) = std::sync::mpsc::sync_channel::<Done>(1);
            std::thread::Builder::new()
                .name("quadstress-step".to_owned())
                .spawn(move || {
                    // Ends when the stepper, and with it the job sender, is dropped.
                    while let Ok(Job { mut sim, steps, dt }) = job_rx.recv() {
                        let stepped = run_steps(&mut sim, steps, dt, now_seconds);
                        if done_tx.send(Done { sim, stepped }).is_err() {
                            break;
                        }
                    }
                })
                .expect("the step thread starts");
            Worker { jobs, done }
        });
        #[cfg(target_arch = "wasm32")]
        let _ = overlap;
        Stepper {
            #[cfg(not(target_arch = "wasm32"))]
            worker,
            in_flight: false,
            done_in_line: Stepped::default(),
        }
    }

    /// Whether the steps run beside the drawing.
    pub fn overlaps(&self) -> bool {
        #[cfg(not(target_arch = "wasm32"))]
        {
            self.worker.is_some()
        }
        #[cfg(target_arch = "wasm32")]
        false
    }

    /// Starts `steps` steps of `dt` seconds on the simulation in `slot`. Beside the drawing,
    /// the slot is [`SimSlot::Stepping`] until [`finish`](Self::finish) puts the stepped
    /// simulation back.
    pub fn start(&mut self, slot: &mut SimSlot, steps: u32, dt: f32) {
        debug_assert!(!self.in_flight, "start after finish");
        #[cfg(not(target_arch = "wasm32"))]
        if let (Some(worker), true) = (&self.worker, steps > 0) {
            if let SimSlot::Home(sim) = std::mem::replace(slot, SimSlot::Stepping) {
                worker
                    .jobs
                    .send(Job { sim, steps, dt })
                    .expect("the step thread runs");
                self.in_flight = true;
                return;
            }
        }
        self.done_in_line = run_steps(slot.get_mut(), steps, dt, now_seconds);
    }

    /// Waits for the steps [`start`](Self::start)ed (if any still run), puts the stepped
    /// simulation back into `slot`, and says what they did.
    pub fn finish(&mut self, slot: &mut SimSlot) -> Stepped {
        #[cfg(not(target_arch = "wasm32"))]
        if self.in_flight {
            self.in_flight = false;
            let worker = self.worker.as_ref().expect("steps in flight have a worker");
            let Done {
                sim: stepped,
                stepped: what,
            } = worker
                .done
                .recv()
                .expect("the step thread sends its result");
            *slot = SimSlot::Home(stepped);
            return what;
        }
        let _ = slot;
        std::mem::take(&mut self.done_in_line)
    }
}

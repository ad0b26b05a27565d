//! The window's simulation steps, run in line or beside the drawing.
//!
//! [`Stepper`] can run a frame's fixed steps (counted by [`quadstress_sim::FixedStep`]) on a
//! worker thread while the main thread hands the frame to OpenGL: the simulation never reads
//! the time, so the particles are the same bits as when stepped in line.

use quadstress_sim::{PhaseTimes, Simulation};

/// The steps of one frame, as they come back.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stepped {
    /// The last step's phases, when a step was taken.
    pub times: Option<PhaseTimes>,
}

#[cfg(not(target_arch = "wasm32"))]
struct Job {
    sim: Simulation,
    steps: u32,
    dt: f32,
}

#[cfg(not(target_arch = "wasm32"))]
struct Done {
    sim: Simulation,
    stepped: Stepped,
}

/// Runs `steps` steps of `dt` seconds on `sim`, timing them with `clock`.
pub fn run_steps(sim: &mut Simulation, steps: u32, dt: f32, clock: fn() -> f64) -> Stepped {
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
    /// An empty simulation that stands in for the stepped one while its steps run.
    #[cfg(not(target_arch = "wasm32"))]
    stand_in: Option<Simulation>,
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
    /// A stepper; with `overlap` (and threads) the steps run on a worker thread while
    /// `stand_in`, an empty simulation, takes the stepped one's place.
    pub fn new(overlap: bool, stand_in: Simulation) -> Self {
        #[cfg(not(target_arch = "wasm32"))]
        let worker = overlap.then(|| {
            let (jobs, job_rx) = std::sync::mpsc::sync_channel::<Job>(1);
            let (done_tx, done) = std::sync::mpsc::sync_channel::<Done>(1);
            std::thread::Builder::new()
                .name("quadstress-step".to_owned())
                .spawn(move || {
                    // Ends when the stepper, and with it the job sender, is dropped.
                    while let Ok(Job { mut sim, steps, dt }) = job_rx.recv() {
                        let stepped = run_steps(&mut sim, steps, dt, super::platform::now_seconds);
                        if done_tx.send(Done { sim, stepped }).is_err() {
                            break;
                        }
                    }
                })
                .expect("the step thread starts");
            Worker { jobs, done }
        });
        #[cfg(target_arch = "wasm32")]
        let _ = (overlap, stand_in);
        Stepper {
            #[cfg(not(target_arch = "wasm32"))]
            worker,
            #[cfg(not(target_arch = "wasm32"))]
            stand_in: Some(stand_in),
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

    /// Starts `steps` steps of `dt` seconds on `sim`. Beside the drawing, `sim` holds the
    /// empty stand-in until [`finish`](Self::finish) puts the stepped simulation back:
    /// nothing may read it in between.
    pub fn start(&mut self, sim: &mut Simulation, steps: u32, dt: f32) {
        debug_assert!(!self.in_flight, "start after finish");
        #[cfg(not(target_arch = "wasm32"))]
        if let (Some(worker), true) = (&self.worker, steps > 0) {
            let stand_in = self.stand_in.take().expect("the stand-in is home");
            let job = Job {
                sim: std::mem::replace(sim, stand_in),
                steps,
                dt,
            };
            worker.jobs.send(job).expect("the step thread runs");
            self.in_flight = true;
            return;
        }
        self.done_in_line = run_steps(sim, steps, dt, super::platform::now_seconds);
    }

    /// Waits for the steps [`start`](Self::start)ed (if any still run), puts the stepped
    /// simulation back into `sim`, and says what they did.
    pub fn finish(&mut self, sim: &mut Simulation) -> Stepped {
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
            self.stand_in = Some(std::mem::replace(sim, stepped));
            return what;
        }
        let _ = sim;
        std::mem::take(&mut self.done_in_line)
    }
}

//! What the benches and the profiling drivers share: the hand-written baselines (sort and
//! sweep, uniform grids), the peer crates behind feature `peers` (rapier2d on the pile in
//! `pile_peer`), and the workloads' random data.

pub mod baselines;
#[cfg(feature = "peers")]
pub mod peers;
#[cfg(feature = "peers")]
pub mod pile_peer;
pub mod workloads;

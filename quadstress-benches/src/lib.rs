//! What the benches and the profiling drivers share: the hand-written baselines (sort and
//! sweep, uniform grids), the peer crates behind feature `peers`, and the workloads' random
//! data.

pub mod baselines;
#[cfg(feature = "peers")]
pub mod peers;
pub mod workloads;

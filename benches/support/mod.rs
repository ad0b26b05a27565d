//! What the two benches share: the baselines (sort and sweep, a uniform grid), the peer crates
//! behind feature `peers`, and the workloads' random data.

pub mod baselines;
#[cfg(feature = "peers")]
pub mod peers;
pub mod workloads;

//! The quadstress workspace's shared test kit, for tests, benches, examples and fuzz targets
//! only (`publish = false`; the library itself has no dependencies):
//! - [`TestRng`]: the one seeded generator;
//! - [`exact`]: predicates computed independently of the library's maths (in `f64` where
//!   `f32` could round), to check its answers against;
//! - [`brute`]: the brute-force loops (every pair of a list);
//! - [`alloc`]: a global allocator that counts, for the no-allocation tests;
//! - [`run`]: running a binary of the workspace (the demo) with or without a display.
//!
//! The library's own unit tests use [`TestRng`] and [`brute`] alone: they compile the library
//! a second time, so a type of the kit that names `quadstress`'s would be another type there.

pub mod alloc;
pub mod brute;
pub mod exact;
mod rng;
pub mod run;

pub use rng::TestRng;

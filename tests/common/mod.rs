//! Pieces the integration tests share. Each test file takes what it needs with `mod common;`,
//! so some go unused in some files.
#![allow(dead_code)]

pub mod alloc;

//! The input layer: the platform (clock, console, a page's parameters) and the controls table
//! (every key and button, the pointer).

pub mod controls;
pub mod platform;

//! The quadstress binary: the demo of `lib.rs`.

fn main() {
    quadstress_demo::run();
}

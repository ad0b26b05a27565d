//! What a callback returns: `()` to see everything, or [`ControlFlow<B>`] to stop early with a
//! value, through one sealed trait, as rustc's visitors accept either.
//!
//! The walks inside the tree all speak `ControlFlow`; a public callback form wraps the
//! caller's closure with [`VisitResult::branch`] and turns the walk's answer back into the
//! closure's return type with [`VisitResult::from_flow`]. For `()` the break type is
//! [`Infallible`], so the wrapping costs nothing and the walk can never stop.

use std::convert::Infallible;
use std::ops::ControlFlow;

mod sealed {
    pub trait Sealed {}
    impl Sealed for () {}
    impl<B> Sealed for std::ops::ControlFlow<B> {}
}

/// What the callbacks of the `for_each_*` queries may return: `()` to visit every item, or
/// [`ControlFlow<B>`] to stop at the first `Break(value)`; the query then returns the same
/// type: `()`, or `Break(value)` / `Continue(())` for a walk that ran to the end.
///
/// Sealed: implemented for `()` and `ControlFlow<B>` only.
///
/// ```
/// use std::ops::ControlFlow;
/// use quadstress::{Quadtree, Rect};
/// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 10.0, 10.0))?;
/// tree.insert(Rect::new(1.0, 1.0, 2.0, 2.0), 1)?;
/// tree.insert(Rect::new(1.5, 1.5, 3.0, 3.0), 2)?;
///
/// // A closure that returns nothing sees every item.
/// let mut found = Vec::new();
/// tree.for_each_in_rect(&Rect::new(0.0, 0.0, 5.0, 5.0), |item| found.push(*item.value))?;
/// assert_eq!(found.len(), 2);
///
/// // One that returns `ControlFlow` stops at its first `Break`.
/// let first = tree.for_each_in_rect(&Rect::new(0.0, 0.0, 5.0, 5.0), |item| {
///     ControlFlow::Break(*item.value)
/// })?;
/// assert!(matches!(first, ControlFlow::Break(1 | 2)));
/// # Ok::<(), quadstress::QuadtreeError>(())
/// ```
pub trait VisitResult: sealed::Sealed {
    /// What a `Break` carries: [`Infallible`] for `()`, which never breaks.
    type Break;

    /// As a `ControlFlow`, which the walks inside the tree speak.
    fn branch(self) -> ControlFlow<Self::Break>;

    /// Back from the walk's `ControlFlow`.
    fn from_flow(flow: ControlFlow<Self::Break>) -> Self;
}

impl VisitResult for () {
    type Break = Infallible;

    #[inline(always)]
    fn branch(self) -> ControlFlow<Infallible> {
        ControlFlow::Continue(())
    }

    #[inline(always)]
    fn from_flow(_: ControlFlow<Infallible>) {}
}

impl<B> VisitResult for ControlFlow<B> {
    type Break = B;

    #[inline(always)]
    fn branch(self) -> ControlFlow<B> {
        self
    }

    #[inline(always)]
    fn from_flow(flow: ControlFlow<B>) -> Self {
        flow
    }
}

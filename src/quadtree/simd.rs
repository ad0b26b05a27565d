//! The vector forms behind the item lists' block scans, and the tree's only unsafe code (the
//! simulation's stripe solver has the crate's other unsafe code: see the crate docs).
//!
//! One small vocabulary, [`F32x4`] (four `f32` lanes) and [`M32x4`] (the lane masks its
//! compares give), has one form per target, chosen at compile time:
//! - x86_64: SSE, part of every x86_64 CPU;
//! - aarch64: NEON, part of every aarch64 CPU the standard targets name;
//! - wasm32 built with `simd128` (`-C target-feature=+simd128`): WebAssembly SIMD;
//! - everything else, or any target built with `--cfg quadstress_portable`: plain arrays,
//!   lane by lane. The compiler vectorizes the compares; the bit mask of a block is taken
//!   from both halves at once ([`M32x4::bitmask8`]), which keeps its reduction simple enough
//!   to vectorize too.
//!
//! The scans are written once in this vocabulary ([`hits8`], [`bounds8`]). On x86_64 an
//! [`Avx`] token, which exists only once the CPU is known to have AVX, also tests eight lanes
//! with one compare per edge, and [`Avx::run`] compiles a whole scan for AVX so the test
//! inlines into it.
#![allow(unsafe_code)]

use super::Rect;

/// Bit `k` set when the rectangle in lane `k` of the four edge arrays intersects `r`
/// (closed, as [`Rect::intersects`]). An empty lane (`+inf` minima, `-inf` maxima) never
/// intersects a finite rectangle.
#[inline(always)]
pub(super) fn hits8(
    min_x: &[f32; 8],
    min_y: &[f32; 8],
    max_x: &[f32; 8],
    max_y: &[f32; 8],
    r: &Rect,
) -> u32 {
    let (rlx, rly) = (F32x4::splat(r.min_x), F32x4::splat(r.min_y));
    let (rhx, rhy) = (F32x4::splat(r.max_x), F32x4::splat(r.max_y));
    let half = |at: usize| {
        let x = F32x4::load(min_x, at)
            .le(rhx)
            .and(F32x4::load(max_x, at).ge(rlx));
        let y = F32x4::load(min_y, at)
            .le(rhy)
            .and(F32x4::load(max_y, at).ge(rly));
        x.and(y)
    };
    M32x4::bitmask8(half(0), half(4))
}

/// Asks the CPU to bring the two cache lines from `block` on into its caches, without
/// waiting for them: ahead of a test, a whole block of lanes (128 bytes aligned to a line);
/// ahead of scattered reads and writes, a node, a slot, an entry, a staged item, a move's
/// plan or a list's room, and what follows it. A hint only: no effect on any result.
#[inline(always)]
pub(super) fn prefetch<T>(block: &T) {
    #[cfg(all(target_arch = "x86_64", not(quadstress_portable)))]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = (block as *const T).cast::<i8>();
        // SAFETY: SSE is part of every x86_64 CPU, and a prefetch of any address never faults
        // and changes nothing the program sees; `wrapping_add` makes the second address
        // without claiming that it lies inside `block`.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(p);
            _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(64));
        }
    }
    #[cfg(not(all(target_arch = "x86_64", not(quadstress_portable))))]
    let _ = block;
}

/// Bit 0 set when `pair[0]` intersects `r` (closed, as [`Rect::intersects`]), bit 1 when
/// `pair[1]` does: both tests in one compare per half. An empty rectangle (`+inf` minima,
/// `-inf` maxima) meets nothing.
#[inline(always)]
pub(super) fn meets2(pair: &[Rect; 2], r: &Rect) -> u32 {
    let [a, b] = pair;
    let edges = [
        a.min_x, a.min_y, a.max_x, a.max_y, b.min_x, b.min_y, b.max_x, b.max_y,
    ];
    // Each rectangle's minima must be at most `r`'s maxima and its maxima at least `r`'s
    // minima; the infinite lanes pass whatever the edge.
    let bars = [
        r.max_x,
        r.max_y,
        f32::INFINITY,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NEG_INFINITY,
        r.min_x,
        r.min_y,
    ];
    let (below, above) = (F32x4::load(&bars, 0), F32x4::load(&bars, 4));
    let half = |at| {
        let e = F32x4::load(&edges, at);
        e.le(below).and(e.ge(above))
    };
    let m = M32x4::bitmask8(half(0), half(4));
    u32::from(m & 0xf == 0xf) | (u32::from(m >> 4 == 0xf) << 1)
}

/// Lane by lane, `(v - origin) * scale`, clamped to `[0, top]` (a NaN to 0), truncated to an
/// integer: the cells of a rectangle's four edges. `top` must be below `2^24`, so exact in
/// `f32`: the result is then that of the saturating `as u32` capped at `top`. On x86_64 the
/// four lanes go through one vector of each step, where the scalar casts cost several
/// instructions each (a conversion through 64 bits, then a check of each end).
#[inline(always)]
pub(super) fn cells4(v: [f32; 4], origin: [f32; 4], scale: [f32; 4], top: f32) -> [u32; 4] {
    #[cfg(all(target_arch = "x86_64", not(quadstress_portable)))]
    {
        use std::arch::x86_64::*;
        let mut out = [0u32; 4];
        // SAFETY: SSE and SSE2 are part of the x86_64 baseline; the loads read the three
        // four-lane arrays given, the store writes `out`. `maxps` gives its second operand
        // (zero) for a NaN, and the clamped lanes lie in `[0, 2^24)`, where the signed
        // conversion is exact.
        #[allow(unused_unsafe)]
        unsafe {
            let x = _mm_mul_ps(
                _mm_sub_ps(_mm_loadu_ps(v.as_ptr()), _mm_loadu_ps(origin.as_ptr())),
                _mm_loadu_ps(scale.as_ptr()),
            );
            let x = _mm_min_ps(_mm_max_ps(x, _mm_setzero_ps()), _mm_set1_ps(top));
            _mm_storeu_si128(out.as_mut_ptr().cast(), _mm_cvttps_epi32(x));
        }
        out
    }
    #[cfg(not(all(target_arch = "x86_64", not(quadstress_portable))))]
    {
        std::array::from_fn(|k| (((v[k] - origin[k]) * scale[k]) as u32).min(top as u32))
    }
}

/// The edge arrays of a block of eight rectangles: min x, min y, max x, max y.
pub(super) type Edges8<'a> = [&'a [f32; 8]; 4];

/// The smallest rectangle containing every lane of every block (min x, min y, max x, max y),
/// or `None` for no blocks. Empty lanes hold infinities that lose every `min` and `max`.
#[inline]
pub(super) fn bounds8<'a>(mut blocks: impl Iterator<Item = Edges8<'a>>) -> Option<Rect> {
    let first = blocks.next()?;
    let halves = |b: Edges8| b.map(|e| [F32x4::load(e, 0), F32x4::load(e, 4)]);
    let mut acc = halves(first);
    for b in blocks {
        let h = halves(b);
        for e in 0..4 {
            for k in 0..2 {
                acc[e][k] = if e < 2 {
                    acc[e][k].min(h[e][k])
                } else {
                    acc[e][k].max(h[e][k])
                };
            }
        }
    }
    // The two halves, then the four lanes: compare and select, as no lane holds a NaN.
    let min = |v: [F32x4; 2]| {
        let a = v[0].min(v[1]).to_array();
        let (x, y) = (
            if a[1] < a[0] { a[1] } else { a[0] },
            if a[3] < a[2] { a[3] } else { a[2] },
        );
        if y < x {
            y
        } else {
            x
        }
    };
    let max = |v: [F32x4; 2]| {
        let a = v[0].max(v[1]).to_array();
        let (x, y) = (
            if a[1] > a[0] { a[1] } else { a[0] },
            if a[3] > a[2] { a[3] } else { a[2] },
        );
        if y > x {
            y
        } else {
            x
        }
    };
    Some(Rect {
        min_x: min(acc[0]),
        min_y: min(acc[1]),
        max_x: max(acc[2]),
        max_y: max(acc[3]),
    })
}

// ------------------------------------------------------------------------------ x86_64 SSE

#[cfg(all(target_arch = "x86_64", not(quadstress_portable)))]
mod form {
    use std::arch::x86_64::*;

    /// Four `f32` lanes.
    #[derive(Clone, Copy)]
    pub(in super::super) struct F32x4(__m128);
    /// Four lane masks (all ones or all zeros).
    #[derive(Clone, Copy)]
    pub(in super::super) struct M32x4(__m128);

    // SAFETY (every block below): SSE is part of the x86_64 baseline, so these intrinsics are
    // always available; loads and stores read or write four `f32`s inside the arrays they are
    // given (unaligned forms).
    #[allow(unused_unsafe)]
    impl F32x4 {
        /// Lanes `at..at + 4` of `a`.
        ///
        /// # Panics
        /// If `at + 4 > 8`.
        #[inline(always)]
        pub(in super::super) fn load(a: &[f32; 8], at: usize) -> Self {
            let lanes: &[f32; 4] = a[at..at + 4].try_into().expect("four lanes");
            F32x4(unsafe { _mm_loadu_ps(lanes.as_ptr()) })
        }
        #[inline(always)]
        pub(in super::super) fn splat(v: f32) -> Self {
            F32x4(unsafe { _mm_set1_ps(v) })
        }
        #[inline(always)]
        pub(in super::super) fn le(self, o: Self) -> M32x4 {
            M32x4(unsafe { _mm_cmple_ps(self.0, o.0) })
        }
        #[inline(always)]
        pub(in super::super) fn ge(self, o: Self) -> M32x4 {
            M32x4(unsafe { _mm_cmpge_ps(self.0, o.0) })
        }
        #[inline(always)]
        pub(in super::super) fn min(self, o: Self) -> Self {
            F32x4(unsafe { _mm_min_ps(self.0, o.0) })
        }
        #[inline(always)]
        pub(in super::super) fn max(self, o: Self) -> Self {
            F32x4(unsafe { _mm_max_ps(self.0, o.0) })
        }
        #[inline(always)]
        pub(in super::super) fn to_array(self) -> [f32; 4] {
            let mut a = [0f32; 4];
            unsafe { _mm_storeu_ps(a.as_mut_ptr(), self.0) };
            a
        }
    }

    #[allow(unused_unsafe)]
    impl M32x4 {
        #[inline(always)]
        pub(in super::super) fn and(self, o: Self) -> Self {
            M32x4(unsafe { _mm_and_ps(self.0, o.0) })
        }
        /// Part of the vocabulary; today only the tests combine masks this way.
        #[cfg_attr(not(test), allow(dead_code))]
        #[inline(always)]
        pub(in super::super) fn or(self, o: Self) -> Self {
            M32x4(unsafe { _mm_or_ps(self.0, o.0) })
        }
        /// Bit `k` set when lane `k` is set.
        #[inline(always)]
        pub(in super::super) fn bitmask(self) -> u32 {
            (unsafe { _mm_movemask_ps(self.0) }) as u32
        }

        /// Bit `k` set when lane `k` of `lo` is set, bit `k + 4` when lane `k` of `hi` is.
        #[inline(always)]
        pub(in super::super) fn bitmask8(lo: Self, hi: Self) -> u32 {
            lo.bitmask() | (hi.bitmask() << 4)
        }
    }

    /// Proof that the CPU has AVX: made only by [`Avx::detect`].
    #[derive(Clone, Copy)]
    pub(in super::super) struct Avx(());

    impl Avx {
        /// The token when the CPU has AVX (the standard library caches the answer).
        #[inline(always)]
        pub(in super::super) fn detect() -> Option<Avx> {
            std::arch::is_x86_feature_detected!("avx").then_some(Avx(()))
        }

        /// Runs `scan` compiled for AVX, so that [`hits8`](Self::hits8) inlines into it. Mark
        /// the closure `#[inline(always)]`: otherwise LLVM may compile a large one on its
        /// own, without AVX, and call the block test out of line.
        #[inline(always)]
        pub(in super::super) fn run<R>(self, scan: impl FnOnce() -> R) -> R {
            // SAFETY: the token exists only on a CPU with AVX.
            unsafe { run_avx(scan) }
        }

        /// As [`super::super::hits8`], all eight lanes in one compare per edge.
        #[inline(always)]
        pub(in super::super) fn hits8(
            self,
            min_x: &[f32; 8],
            min_y: &[f32; 8],
            max_x: &[f32; 8],
            max_y: &[f32; 8],
            r: &super::super::Rect,
        ) -> u32 {
            // SAFETY: the token exists only on a CPU with AVX.
            unsafe { hits8_avx(min_x, min_y, max_x, max_y, r) }
        }
    }

    /// # Safety
    /// The CPU must support AVX.
    #[target_feature(enable = "avx")]
    #[inline]
    unsafe fn run_avx<R>(scan: impl FnOnce() -> R) -> R {
        scan()
    }

    /// # Safety
    /// The CPU must support AVX.
    #[target_feature(enable = "avx")]
    #[inline]
    #[allow(unused_unsafe)]
    unsafe fn hits8_avx(
        min_x: &[f32; 8],
        min_y: &[f32; 8],
        max_x: &[f32; 8],
        max_y: &[f32; 8],
        r: &super::super::Rect,
    ) -> u32 {
        // SAFETY: the caller guarantees AVX; each load reads the eight `f32`s of one array.
        unsafe {
            let lx = _mm256_loadu_ps(min_x.as_ptr());
            let ly = _mm256_loadu_ps(min_y.as_ptr());
            let hx = _mm256_loadu_ps(max_x.as_ptr());
            let hy = _mm256_loadu_ps(max_y.as_ptr());
            let x = _mm256_and_ps(
                _mm256_cmp_ps::<_CMP_LE_OQ>(lx, _mm256_set1_ps(r.max_x)),
                _mm256_cmp_ps::<_CMP_LE_OQ>(_mm256_set1_ps(r.min_x), hx),
            );
            let y = _mm256_and_ps(
                _mm256_cmp_ps::<_CMP_LE_OQ>(ly, _mm256_set1_ps(r.max_y)),
                _mm256_cmp_ps::<_CMP_LE_OQ>(_mm256_set1_ps(r.min_y), hy),
            );
            _mm256_movemask_ps(_mm256_and_ps(x, y)) as u32
        }
    }
}

// ----------------------------------------------------------------------------- aarch64 NEON

#[cfg(all(
    target_arch = "aarch64",
    target_feature = "neon",
    not(quadstress_portable)
))]
mod form {
    use std::arch::aarch64::*;

    /// Four `f32` lanes.
    #[derive(Clone, Copy)]
    pub(in super::super) struct F32x4(float32x4_t);
    /// Four lane masks (all ones or all zeros).
    #[derive(Clone, Copy)]
    pub(in super::super) struct M32x4(uint32x4_t);

    // SAFETY (every block below): this form is compiled only where NEON is enabled; loads and
    // stores read or write four lanes inside the arrays they are given.
    #[allow(unused_unsafe)]
    impl F32x4 {
        /// Lanes `at..at + 4` of `a`.
        ///
        /// # Panics
        /// If `at + 4 > 8`.
        #[inline(always)]
        pub(in super::super) fn load(a: &[f32; 8], at: usize) -> Self {
            let lanes: &[f32; 4] = a[at..at + 4].try_into().expect("four lanes");
            F32x4(unsafe { vld1q_f32(lanes.as_ptr()) })
        }
        #[inline(always)]
        pub(in super::super) fn splat(v: f32) -> Self {
            F32x4(unsafe { vdupq_n_f32(v) })
        }
        #[inline(always)]
        pub(in super::super) fn le(self, o: Self) -> M32x4 {
            M32x4(unsafe { vcleq_f32(self.0, o.0) })
        }
        #[inline(always)]
        pub(in super::super) fn ge(self, o: Self) -> M32x4 {
            M32x4(unsafe { vcgeq_f32(self.0, o.0) })
        }
        #[inline(always)]
        pub(in super::super) fn min(self, o: Self) -> Self {
            F32x4(unsafe { vminq_f32(self.0, o.0) })
        }
        #[inline(always)]
        pub(in super::super) fn max(self, o: Self) -> Self {
            F32x4(unsafe { vmaxq_f32(self.0, o.0) })
        }
        #[inline(always)]
        pub(in super::super) fn to_array(self) -> [f32; 4] {
            let mut a = [0f32; 4];
            unsafe { vst1q_f32(a.as_mut_ptr(), self.0) };
            a
        }
    }

    #[allow(unused_unsafe)]
    impl M32x4 {
        #[inline(always)]
        pub(in super::super) fn and(self, o: Self) -> Self {
            M32x4(unsafe { vandq_u32(self.0, o.0) })
        }
        /// Part of the vocabulary; today only the tests combine masks this way.
        #[cfg_attr(not(test), allow(dead_code))]
        #[inline(always)]
        pub(in super::super) fn or(self, o: Self) -> Self {
            M32x4(unsafe { vorrq_u32(self.0, o.0) })
        }
        /// Bit `k` set when lane `k` is set: each lane keeps its own bit, then one sum.
        #[inline(always)]
        pub(in super::super) fn bitmask(self) -> u32 {
            const BITS: [u32; 4] = [1, 2, 4, 8];
            unsafe { vaddvq_u32(vandq_u32(self.0, vld1q_u32(BITS.as_ptr()))) }
        }

        /// Bit `k` set when lane `k` of `lo` is set, bit `k + 4` when lane `k` of `hi` is.
        #[inline(always)]
        pub(in super::super) fn bitmask8(lo: Self, hi: Self) -> u32 {
            lo.bitmask() | (hi.bitmask() << 4)
        }
    }
}

// ------------------------------------------------------------------------- wasm32 simd128

#[cfg(all(
    target_arch = "wasm32",
    target_feature = "simd128",
    not(quadstress_portable)
))]
mod form {
    use std::arch::wasm32::*;

    /// Four `f32` lanes.
    #[derive(Clone, Copy)]
    pub(in super::super) struct F32x4(v128);
    /// Four lane masks (all ones or all zeros).
    #[derive(Clone, Copy)]
    pub(in super::super) struct M32x4(v128);

    impl F32x4 {
        /// Lanes `at..at + 4` of `a`.
        ///
        /// # Panics
        /// If `at + 4 > 8`.
        #[inline(always)]
        pub(in super::super) fn load(a: &[f32; 8], at: usize) -> Self {
            let lanes: &[f32; 4] = a[at..at + 4].try_into().expect("four lanes");
            // SAFETY: reads the four `f32`s of `lanes`; wasm loads need no alignment.
            F32x4(unsafe { v128_load(lanes.as_ptr().cast::<v128>()) })
        }
        #[inline(always)]
        pub(in super::super) fn splat(v: f32) -> Self {
            F32x4(f32x4_splat(v))
        }
        #[inline(always)]
        pub(in super::super) fn le(self, o: Self) -> M32x4 {
            M32x4(f32x4_le(self.0, o.0))
        }
        #[inline(always)]
        pub(in super::super) fn ge(self, o: Self) -> M32x4 {
            M32x4(f32x4_ge(self.0, o.0))
        }
        /// Lane-wise `o < self ? o : self`: no NaN is ever stored, so this is `min`.
        #[inline(always)]
        pub(in super::super) fn min(self, o: Self) -> Self {
            F32x4(f32x4_pmin(self.0, o.0))
        }
        #[inline(always)]
        pub(in super::super) fn max(self, o: Self) -> Self {
            F32x4(f32x4_pmax(self.0, o.0))
        }
        #[inline(always)]
        pub(in super::super) fn to_array(self) -> [f32; 4] {
            [
                f32x4_extract_lane::<0>(self.0),
                f32x4_extract_lane::<1>(self.0),
                f32x4_extract_lane::<2>(self.0),
                f32x4_extract_lane::<3>(self.0),
            ]
        }
    }

    impl M32x4 {
        #[inline(always)]
        pub(in super::super) fn and(self, o: Self) -> Self {
            M32x4(v128_and(self.0, o.0))
        }
        /// Part of the vocabulary; today only the tests combine masks this way.
        #[cfg_attr(not(test), allow(dead_code))]
        #[inline(always)]
        pub(in super::super) fn or(self, o: Self) -> Self {
            M32x4(v128_or(self.0, o.0))
        }
        /// Bit `k` set when lane `k` is set.
        #[inline(always)]
        pub(in super::super) fn bitmask(self) -> u32 {
            i32x4_bitmask(self.0) as u32
        }

        /// Bit `k` set when lane `k` of `lo` is set, bit `k + 4` when lane `k` of `hi` is.
        #[inline(always)]
        pub(in super::super) fn bitmask8(lo: Self, hi: Self) -> u32 {
            lo.bitmask() | (hi.bitmask() << 4)
        }
    }
}

// -------------------------------------------------------------------------------- portable

#[cfg(not(any(
    all(target_arch = "x86_64", not(quadstress_portable)),
    all(
        target_arch = "aarch64",
        target_feature = "neon",
        not(quadstress_portable)
    ),
    all(
        target_arch = "wasm32",
        target_feature = "simd128",
        not(quadstress_portable)
    ),
)))]
mod form {
    /// Four `f32` lanes.
    #[derive(Clone, Copy)]
    pub(in super::super) struct F32x4([f32; 4]);
    /// Four lane masks, each all ones or all zeros, as vector compares give them.
    #[derive(Clone, Copy)]
    pub(in super::super) struct M32x4([u32; 4]);

    impl F32x4 {
        /// Lanes `at..at + 4` of `a`.
        ///
        /// # Panics
        /// If `at + 4 > 8`.
        #[inline(always)]
        pub(in super::super) fn load(a: &[f32; 8], at: usize) -> Self {
            F32x4(a[at..at + 4].try_into().expect("four lanes"))
        }
        #[inline(always)]
        pub(in super::super) fn splat(v: f32) -> Self {
            F32x4([v; 4])
        }
        #[inline(always)]
        pub(in super::super) fn le(self, o: Self) -> M32x4 {
            M32x4(std::array::from_fn(|k| {
                0u32.wrapping_sub(u32::from(self.0[k] <= o.0[k]))
            }))
        }
        #[inline(always)]
        pub(in super::super) fn ge(self, o: Self) -> M32x4 {
            M32x4(std::array::from_fn(|k| {
                0u32.wrapping_sub(u32::from(self.0[k] >= o.0[k]))
            }))
        }
        #[inline(always)]
        pub(in super::super) fn min(self, o: Self) -> Self {
            F32x4(std::array::from_fn(|k| self.0[k].min(o.0[k])))
        }
        #[inline(always)]
        pub(in super::super) fn max(self, o: Self) -> Self {
            F32x4(std::array::from_fn(|k| self.0[k].max(o.0[k])))
        }
        #[inline(always)]
        pub(in super::super) fn to_array(self) -> [f32; 4] {
            self.0
        }
    }

    impl M32x4 {
        #[inline(always)]
        pub(in super::super) fn and(self, o: Self) -> Self {
            M32x4(std::array::from_fn(|k| self.0[k] & o.0[k]))
        }
        /// Part of the vocabulary; today only the tests combine masks this way.
        #[cfg_attr(not(test), allow(dead_code))]
        #[inline(always)]
        pub(in super::super) fn or(self, o: Self) -> Self {
            M32x4(std::array::from_fn(|k| self.0[k] | o.0[k]))
        }
        /// Bit `k` set when lane `k` is set: each lane's top bit, moved to its place. (The
        /// block test takes eight lanes at once, through [`bitmask8`](Self::bitmask8).)
        #[cfg_attr(not(test), allow(dead_code))]
        #[inline(always)]
        pub(in super::super) fn bitmask(self) -> u32 {
            let m = self.0;
            (m[0] >> 31) | ((m[1] >> 31) << 1) | ((m[2] >> 31) << 2) | ((m[3] >> 31) << 3)
        }

        /// Bit `k` set when lane `k` of `lo` is set, bit `k + 4` when lane `k` of `hi` is.
        #[inline(always)]
        pub(in super::super) fn bitmask8(lo: Self, hi: Self) -> u32 {
            // The lane bits come through `black_box` so that the compiler cannot specialize
            // each lane's `&` into a different shift or extension: with every lane alike, the
            // whole reduction stays in vector registers.
            let bits = std::hint::black_box([1u32, 2, 4, 8]);
            let l: [u32; 4] =
                std::array::from_fn(|k| (lo.0[k] & bits[k]) | (hi.0[k] & (bits[k] << 4)));
            (l[0] | l[1]) | (l[2] | l[3])
        }
    }
}

use form::{F32x4, M32x4};

#[cfg(all(target_arch = "x86_64", not(quadstress_portable)))]
pub(super) use form::Avx;

/// Stands in for the AVX token where there is none: it is never made, so the scans' AVX
/// branches compile away.
#[cfg(not(all(target_arch = "x86_64", not(quadstress_portable))))]
#[derive(Clone, Copy)]
pub(super) enum Avx {}

#[cfg(not(all(target_arch = "x86_64", not(quadstress_portable))))]
impl Avx {
    #[inline(always)]
    pub(super) fn detect() -> Option<Avx> {
        None
    }
    #[inline(always)]
    pub(super) fn run<R>(self, _: impl FnOnce() -> R) -> R {
        match self {}
    }
    #[inline(always)]
    pub(super) fn hits8(
        self,
        _: &[f32; 8],
        _: &[f32; 8],
        _: &[f32; 8],
        _: &[f32; 8],
        _: &Rect,
    ) -> u32 {
        match self {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values with ties, signs, infinities and zeros of both signs.
    const VALUES: [f32; 9] = [
        f32::NEG_INFINITY,
        -3.5,
        -0.0,
        0.0,
        1.0,
        1.0,
        2.5,
        f32::MAX,
        f32::INFINITY,
    ];

    fn arrays() -> impl Iterator<Item = [f32; 8]> {
        (0..200u32).map(|s| {
            std::array::from_fn(|k| VALUES[(s as usize * 7 + k * (s as usize % 5 + 1)) % 9])
        })
    }

    #[test]
    fn every_operation_matches_its_lane_by_lane_meaning() {
        for a in arrays() {
            for b in arrays().take(20) {
                for at in [0, 4] {
                    let (x, y) = (F32x4::load(&a, at), F32x4::load(&b, at));
                    let (xa, ya) = (x.to_array(), y.to_array());
                    assert_eq!(xa, a[at..at + 4]);
                    let mask =
                        |f: &dyn Fn(usize) -> bool| (0..4).fold(0, |m, k| m | u32::from(f(k)) << k);
                    assert_eq!(x.le(y).bitmask(), mask(&|k| xa[k] <= ya[k]));
                    assert_eq!(x.ge(y).bitmask(), mask(&|k| xa[k] >= ya[k]));
                    let (le, ge) = (x.le(y), x.ge(y));
                    assert_eq!(le.and(ge).bitmask(), mask(&|k| xa[k] == ya[k]));
                    assert_eq!(le.or(ge).bitmask(), 0b1111);
                    assert_eq!(
                        M32x4::bitmask8(le, ge),
                        x.le(y).bitmask() | (x.ge(y).bitmask() << 4)
                    );
                    let (lo, hi) = (x.min(y).to_array(), x.max(y).to_array());
                    for k in 0..4 {
                        assert_eq!(lo[k], xa[k].min(ya[k]), "min of {} and {}", xa[k], ya[k]);
                        assert_eq!(hi[k], xa[k].max(ya[k]), "max of {} and {}", xa[k], ya[k]);
                    }
                    assert_eq!(F32x4::splat(a[at]).to_array(), [a[at]; 4]);
                }
            }
        }
    }

    #[test]
    fn block_tests_match_rect_intersects() {
        let mut n = 0;
        for lx in arrays().step_by(3) {
            let ly: [f32; 8] = std::array::from_fn(|k| lx[(k + 3) % 8]);
            let hx: [f32; 8] = std::array::from_fn(|k| lx[k].max(lx[(k + 1) % 8]));
            let hy: [f32; 8] = std::array::from_fn(|k| ly[k].max(ly[(k + 5) % 8]));
            for q in [
                Rect::new(-1.0, -1.0, 1.0, 1.0),
                Rect::new(0.0, 0.0, 0.0, 0.0),
                Rect::new(1.0, -4.0, 2.5, 1.0),
                Rect::new(-f32::MAX, -f32::MAX, f32::MAX, f32::MAX),
            ] {
                let want = (0..8).fold(0, |m, k| {
                    let hit = lx[k] <= q.max_x
                        && q.min_x <= hx[k]
                        && ly[k] <= q.max_y
                        && q.min_y <= hy[k];
                    m | u32::from(hit) << k
                });
                n += want.count_ones();
                assert_eq!(hits8(&lx, &ly, &hx, &hy, &q), want);
                if let Some(avx) = Avx::detect() {
                    assert_eq!(avx.run(|| avx.hits8(&lx, &ly, &hx, &hy, &q)), want);
                }
            }
        }
        assert!(n > 100, "the cases must hit as well as miss");
    }

    #[test]
    fn pair_tests_match_rect_intersects() {
        let empty = Rect {
            min_x: f32::INFINITY,
            min_y: f32::INFINITY,
            max_x: f32::NEG_INFINITY,
            max_y: f32::NEG_INFINITY,
        };
        let mut rects = vec![empty];
        for a in arrays().step_by(7) {
            let (x0, y0) = (a[0].min(a[1]), a[2].min(a[3]));
            let (x1, y1) = (a[0].max(a[1]), a[2].max(a[3]));
            rects.push(Rect {
                min_x: x0,
                min_y: y0,
                max_x: x1,
                max_y: y1,
            });
        }
        let queries = [
            Rect::new(-1.0, -1.0, 1.0, 1.0),
            Rect::new(0.0, 0.0, 0.0, 0.0),
            Rect::new(1.0, -4.0, 2.5, 1.0),
            Rect::new(2.5, 2.5, 3.0, 3.0),
            Rect::new(-f32::MAX, -f32::MAX, f32::MAX, f32::MAX),
        ];
        let (mut met, mut missed) = (0, 0);
        for a in &rects {
            for b in &rects {
                for q in &queries {
                    let want = u32::from(a.intersects(q)) | u32::from(b.intersects(q)) << 1;
                    assert_eq!(meets2(&[*a, *b], q), want, "{a:?} {b:?} {q:?}");
                    met += want.count_ones();
                    missed += 2 - want.count_ones();
                }
            }
        }
        assert!(met > 100 && missed > 100, "{met} {missed}");
    }
}

//! Shared pieces of the fuzz targets: hostile numbers and rectangles, decoded from the
//! fuzzer's bytes. The exact (f64) reference predicates, independent of the crate's maths, are
//! the workspace's test kit's (`quadstress_testkit::exact`).

use arbitrary::Arbitrary;
use quadstress::Rect;

/// A number the fuzzer picks: a hostile special value, a special value nudged by a few ulps,
/// a point of the world (as a fraction of its extent), or any bit pattern.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Num {
    Special(u8),
    Nudged(u8, i8),
    InWorld(u16),
    Bits(u32),
}

const SPECIALS: [f32; 26] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    8.0,
    100.0,
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::MAX,
    -f32::MAX,
    f32::MIN_POSITIVE,
    -f32::MIN_POSITIVE,
    1e-45,
    1e-40,
    1e-30,
    1e-20,
    1e-5,
    1e7,
    1e20,
    1e30,
    1e37,
    3e38,
    -1e30,
    -1e20,
];

fn nudge(v: f32, ulps: i8) -> f32 {
    if !v.is_finite() || ulps == 0 {
        return v;
    }
    // Steps along the ordered integers of f32 bit patterns.
    let bits = v.to_bits() as i32;
    let ordered = if bits < 0 { i32::MIN - bits } else { bits };
    let moved = ordered.saturating_add(ulps as i32);
    let back = if moved < 0 { i32::MIN - moved } else { moved };
    f32::from_bits(back as u32)
}

impl Num {
    /// The value, with `world` giving the points of `InWorld` and extra specials (its edges).
    pub fn get(self, world: &Rect, axis_y: bool) -> f32 {
        let (lo, hi) = if axis_y {
            (world.min_y, world.max_y)
        } else {
            (world.min_x, world.max_x)
        };
        let special = |i: u8| {
            let extra = [lo, hi, 0.5 * lo + 0.5 * hi];
            let i = i as usize % (SPECIALS.len() + extra.len());
            if i < SPECIALS.len() {
                SPECIALS[i]
            } else {
                extra[i - SPECIALS.len()]
            }
        };
        match self {
            Num::Special(i) => special(i),
            Num::Nudged(i, u) => nudge(special(i), u),
            Num::InWorld(t) => {
                let t = t as f64 / u16::MAX as f64;
                // Slightly beyond the world on both sides too.
                let v = lo as f64 + (hi as f64 - lo as f64) * (1.2 * t - 0.1);
                v as f32
            }
            Num::Bits(b) => f32::from_bits(b),
        }
    }
}

/// A rectangle from four hostile numbers (possibly inverted or non-finite).
#[derive(Arbitrary, Debug, Clone, Copy)]
pub struct R(pub Num, pub Num, pub Num, pub Num);

impl R {
    pub fn get(self, world: &Rect) -> Rect {
        Rect::new(
            self.0.get(world, false),
            self.1.get(world, true),
            self.2.get(world, false),
            self.3.get(world, true),
        )
    }
}

/// A world: one of the hostile presets, or any four numbers.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum WorldSpec {
    Preset(u8),
    Custom(Num, Num, Num, Num),
}

const PRESETS: [Rect; 10] = [
    Rect::new(0.0, 0.0, 100.0, 100.0),
    Rect::new(0.0, 0.0, 2048.0, 1536.0),
    Rect::new(-1e30, -1e30, 1e30, 1e30),
    Rect::new(-1e-20, -1e-20, 1e-20, 1e-20),
    Rect::new(1e7, 1e7, 1e7 + 1.0, 1e7 + 1.0),
    Rect::new(0.0, 0.0, f32::MAX, f32::MAX),
    Rect::new(-1.7e38, -1.7e38, 1.7e38, 1.7e38),
    Rect::new(0.0, 0.0, 1e-35, 1e-35),
    Rect::new(0.1, 0.1, 0.4, 0.4),
    Rect::new(0.0, 0.0, 100.0, 1e12),
];

impl WorldSpec {
    pub fn get(self) -> Rect {
        match self {
            WorldSpec::Preset(i) => PRESETS[i as usize % PRESETS.len()],
            WorldSpec::Custom(a, b, c, d) => {
                let unit = Rect::new(0.0, 0.0, 1.0, 1.0);
                Rect::new(
                    a.get(&unit, false),
                    b.get(&unit, true),
                    c.get(&unit, false),
                    d.get(&unit, true),
                )
            }
        }
    }
}

/// Whether the tree must accept `world`, by the rule its docs state.
pub fn world_is_valid(w: &Rect) -> bool {
    if quadstress_testkit::exact::rect_error(w).is_some() {
        return false;
    }
    let ok = |side: f32| side > 0.0 && side.is_finite() && (1024.0 / side).is_finite();
    ok(w.max_x - w.min_x) && ok(w.max_y - w.min_y)
}

/// Everything the order of a tree depends on: its nodes in walk order, each with its items
/// in list order, named by slot (`ItemId::index`) so that a clone, whose handles are its own,
/// compares equal to its original.
pub fn layout(
    tree: &quadstress::Quadtree<u32>,
) -> Vec<(quadstress::NodeInfo, Vec<(u32, Rect, u32)>)> {
    let mut out = Vec::new();
    tree.for_each_node_items(|node, items| {
        out.push((
            node,
            items.map(|i| (i.id.index(), i.rect, *i.value)).collect(),
        ));
    });
    out
}

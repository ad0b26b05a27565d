//! The demo's colours: the floor, the blue quad, the node outlines per depth, the particles'
//! colourings. The scene, the HUD's legend and the tests read them from here.

use macroquad::color::Color;

/// Window background, outside the world.
pub const BACKGROUND: Color = Color::new(18.0 / 255.0, 18.0 / 255.0, 23.0 / 255.0, 1.0);
pub const BACKGROUND_RGBA: [u8; 4] = [18, 18, 23, 255];
/// The world's floor.
pub const FLOOR_RGBA: [u8; 4] = [28, 31, 41, 255];
/// The blue quad's outline (opaque, so tests can find it).
pub const QUAD_EDGE: Color = Color::new(40.0 / 255.0, 110.0 / 255.0, 1.0, 1.0);
pub const QUAD_EDGE_RGBA: [u8; 4] = [40, 110, 255, 255];
/// The blue quad's fill: its colour and opacity over the floor.
pub const QUAD_FILL: ([u8; 3], u8) = ([40, 110, 255], 56);
/// The edges of leaves that split or merged in the last second: their colour and starting
/// opacity.
pub const FLASH: ([u8; 3], u8) = ([255, 240, 60], 255);
/// Particles found by the quad's query.
pub const HIGHLIGHT: [u8; 4] = [255, 0, 255, 255];
/// The tint of the leaves the quad's query visited, and its opacity: it lightens what is
/// under it, particles and floor alike.
pub const VISITED_TINT: ([u8; 3], u8) = ([255, 255, 255], 64);
/// The outline of the leaves the quad's query visited, drawn over the node outlines.
pub const VISITED_EDGE: [u8; 4] = [255, 255, 255, 255];
/// Node outline colour per depth, shallow to deep: bright, and never a particle's colour.
pub const OUTLINE_COLORS: [[u8; 4]; 11] = [
    [255, 255, 255, 255],
    [255, 217, 77, 255],
    [255, 153, 51, 255],
    [242, 89, 89, 255],
    [204, 102, 230, 255],
    [115, 140, 255, 255],
    [77, 217, 242, 255],
    [89, 230, 140, 255],
    [166, 242, 89, 255],
    [230, 230, 128, 255],
    [179, 179, 179, 255],
];
/// Particle colour per depth of its node: the outline's hue, darker, so a pile shows its
/// tree and the outlines stand out on it.
pub const DEPTH_COLORS: [[u8; 4]; 11] = {
    let mut c = OUTLINE_COLORS;
    let mut i = 0;
    while i < c.len() {
        let mut k = 0;
        while k < 3 {
            c[i][k] = (c[i][k] as u16 * 3 / 5) as u8;
            k += 1;
        }
        i += 1;
    }
    c
};
/// Speed colouring: at rest, and at [`FAST`] units per second or more.
pub const SLOW: [u8; 4] = [40, 60, 110, 255];
pub const FAST: [u8; 4] = [200, 60, 40, 255];
/// Speed at which the speed colouring saturates, in world units per second.
pub const FAST_SPEED: f32 = 400.0;
/// Contact colouring: touching another particle, and free.
pub const TOUCHING: [u8; 4] = [225, 120, 20, 255];
pub const FREE: [u8; 4] = [60, 75, 100, 255];

fn lerp(a: [u8; 4], b: [u8; 4], t: f32) -> [u8; 4] {
    let mix = |x: u8, y: u8| (x as f32 + (y as f32 - x as f32) * t).round() as u8;
    [mix(a[0], b[0]), mix(a[1], b[1]), mix(a[2], b[2]), 255]
}

/// The colour a particle gets in speed mode.
pub fn speed_color(vx: f32, vy: f32) -> [u8; 4] {
    lerp(
        SLOW,
        FAST,
        ((vx * vx + vy * vy).sqrt() / FAST_SPEED).min(1.0),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Colours whose channels all lie within `tolerance` of each other.
    fn near(a: [u8; 4], b: [u8; 4], tolerance: u8) -> bool {
        (0..3).all(|k| a[k].abs_diff(b[k]) <= tolerance)
    }

    #[test]
    fn no_particle_shares_a_colour_with_an_outline() {
        let mut particle_colors: Vec<[u8; 4]> = DEPTH_COLORS.to_vec();
        particle_colors.extend([TOUCHING, FREE]);
        for s in 0..=100 {
            particle_colors.push(speed_color(FAST_SPEED * s as f32 / 100.0, 0.0));
        }
        for p in &particle_colors {
            for o in OUTLINE_COLORS.iter().chain([&HIGHLIGHT]) {
                assert!(!near(*p, *o, 24), "particle {p:?} looks like outline {o:?}");
            }
        }
    }
}

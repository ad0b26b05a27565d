//! Sorting the contacts into the order the solver walks them: by bucket (each stripe, then
//! the serial bucket; see the solver's documentation), each bucket floor first, and within a
//! row in the broad phase's order. The order depends on the contacts and the particles
//! alone, never on the thread count.
//!
//! Three passes, each over fixed partitions, each task writing only its own slice: every
//! particle's row and stripe; every fixed chunk of contacts sorted by bucket within the chunk
//! (a counting sort); then each bucket gathers its share of every chunk, in chunk order, and
//! sorts it by row (a counting sort where the world's rows are few next to the contacts, a
//! comparison sort by row and particles elsewhere, so that nothing is sized by a tall
//! world).

use super::body::Body;
use super::contact::Contact;
use super::stripes::MAX_STRIPES;
use super::CHUNK;
use crate::parallel::Cut;
use crate::Simulation;

/// Contacts per chunk of the first contact pass.
const CONTACT_CHUNK: usize = 16_384;
/// Rows beyond this share the last one (the key keeps a row in 22 bits).
const ROW_MAX: u32 = (1 << 22) - 1;
/// A particle's key: its row above these bits, whether it sleeps, its stripe below.
const ROW_SHIFT: u32 = 10;
const ASLEEP: u32 = 1 << 9;
const STRIPE: u32 = ASLEEP - 1;
/// The tag of a contact left out.
const SKIP: u32 = u32::MAX;
/// Buckets at most: every stripe and the serial bucket.
const MAX_BUCKETS: usize = MAX_STRIPES + 1;

/// The sort's reusable buffers.
#[derive(Debug, Default)]
pub(super) struct SortBuffers {
    /// Each particle's row, whether it sleeps and its stripe (the stripe count for a particle
    /// outside every stripe).
    particle_keys: Vec<u32>,
    /// Each contact's row and bucket, `row << 9 | bucket`, in the broad phase's order.
    tags: Vec<u32>,
    /// Each chunk of contacts, sorted by bucket within the chunk.
    local: Vec<Contact>,
    /// Per chunk, the number of its contacts in each bucket...
    counts: Vec<u32>,
    /// ...and where they start within the chunk.
    offsets: Vec<u32>,
    /// Per bucket, a count (then the next position) per row.
    row_counts: Vec<u32>,
}

impl Simulation {
    /// Sorts the contacts of the last broad phase into `buffers.sorted`, bucket by bucket
    /// (`buffers.starts`), each floor first, leaving out those between two sleeping
    /// particles: nothing in the step can move them (a particle woken in the step has its
    /// contacts back from the next one).
    pub(super) fn sort_contacts(&mut self) {
        let count = self.stripes.count();
        let width = count + 1;
        let size = self.config.particle_size;
        let floor = self.config.world.max_y;
        // Rows half a particle high, counted from the floor: a particle and the one it rests
        // on never share one, so the support comes first. `as` saturates (NaN, which never
        // happens here, gives 0).
        let row = move |y: f32| (((floor - y) / (0.5 * size)) as u32).min(ROW_MAX);
        let rows = row(self.config.world.min_y) as usize + 1;
        let buf = &mut self.buffers;
        let sort = &mut buf.sort;
        let particles = &self.particles;
        let contacts = &self.broad.contacts;
        let workers = &self.workers;
        let (n, m) = (particles.len(), contacts.len());
        // Without stripes (before the first reordering) every particle is outside them.
        let pstarts: &[u32] = if buf.stripe_starts.len() == count + 1 {
            &buf.stripe_starts
        } else {
            &[0]
        };
        let stripes_known = pstarts.len() == count + 1;

        sort.particle_keys.resize(n, 0);
        buf.bodies.resize(n, Body::default());
        let bodies = &buf.bodies;
        let chunk_bound = |k: usize| k * CHUNK;
        workers.for_each_part(
            Cut::new(&mut sort.particle_keys, chunk_bound),
            n.div_ceil(CHUNK),
            |_, keys| {
                let (mut keys, mut at) = keys.get();
                let mut stripe = if stripes_known {
                    pstarts.partition_point(|&s| s as usize <= at) - 1
                } else {
                    count
                };
                // One run of particles per stripe (then one outside every stripe), so the
                // inner loop does not look for the stripe's end.
                while !keys.is_empty() {
                    let end = if stripe < count {
                        (pstarts[stripe + 1] as usize).max(at)
                    } else {
                        usize::MAX
                    };
                    let run = (end - at).min(keys.len());
                    let (head, tail) = keys.split_at_mut(run);
                    let tag = stripe as u32;
                    for ((key, p), b) in head
                        .iter_mut()
                        .zip(&particles[at..at + run])
                        .zip(&bodies[at..at + run])
                    {
                        let asleep = if b.asleep() { ASLEEP } else { 0 };
                        *key = row(p.y) << ROW_SHIFT | asleep | tag;
                    }
                    (keys, at) = (tail, at + run);
                    stripe += 1;
                }
            },
        );

        // Each chunk of contacts by bucket.
        let chunks = m.div_ceil(CONTACT_CHUNK);
        sort.tags.resize(m, 0);
        sort.local.resize(m, Contact::default());
        sort.counts.resize(chunks * width, 0);
        sort.offsets.resize(chunks * width, 0);
        let particle_keys = &sort.particle_keys;
        let contact_bound = |k: usize| k * CONTACT_CHUNK;
        let width_bound = move |k: usize| k * width;
        workers.for_each_part(
            (
                (
                    Cut::new(&mut sort.local, contact_bound),
                    Cut::new(&mut sort.tags, contact_bound),
                ),
                (
                    Cut::new(&mut sort.counts, width_bound),
                    Cut::new(&mut sort.offsets, width_bound),
                ),
            ),
            chunks,
            |_, ((local, tags), (counts, offsets))| {
                let ((local, start), (tags, _)) = (local.get(), tags.get());
                let ((counts, _), (offsets, _)) = (counts.get(), offsets.get());
                let chunk = &contacts[start..start + local.len()];
                counts.fill(0);
                for (tag, &(a, b)) in tags.iter_mut().zip(chunk) {
                    let (ka, kb) = (particle_keys[a as usize], particle_keys[b as usize]);
                    if ka & kb & ASLEEP != 0 {
                        *tag = SKIP;
                        continue;
                    }
                    let (sa, sb) = ((ka & STRIPE) as usize, (kb & STRIPE) as usize);
                    let bucket = if sa < count && sb < count && sa.abs_diff(sb) <= 1 {
                        sa.min(sb)
                    } else {
                        count
                    };
                    counts[bucket] += 1;
                    // The lower particle's row: rows never grow downwards.
                    *tag = (ka >> ROW_SHIFT).min(kb >> ROW_SHIFT) << 9 | bucket as u32;
                }
                let mut next = [0u32; MAX_BUCKETS + 1];
                let mut at = 0;
                for (k, (&c, o)) in counts.iter().zip(offsets.iter_mut()).enumerate() {
                    (next[k], *o) = (at, at);
                    at += c;
                }
                for (&tag, &(a, b)) in tags.iter().zip(chunk) {
                    if tag == SKIP {
                        continue;
                    }
                    let at = &mut next[(tag & 511) as usize];
                    local[*at as usize] = Contact {
                        a,
                        b,
                        key: tag >> 9,
                        closing: 0.0,
                    };
                    *at += 1;
                }
            },
        );

        // Where each bucket starts: buckets in order, each chunk's share in chunk order.
        buf.starts.clear();
        let mut at = 0u32;
        for bucket in 0..width {
            buf.starts.push(at);
            at += (0..chunks)
                .map(|g| sort.counts[g * width + bucket])
                .sum::<u32>();
        }
        buf.starts.push(at);

        // Each bucket gathers its share of every chunk and sorts it by row.
        let by_count = rows.saturating_mul(width) <= 4 * m + 65_536;
        sort.row_counts
            .resize(if by_count { rows * width } else { 0 }, 0);
        buf.sorted.resize(at as usize, Contact::default());
        let starts = &buf.starts;
        let (local, counts, offsets) = (&sort.local, &sort.counts, &sort.offsets);
        let runs = move |bucket: usize| {
            (0..chunks).map(move |g| {
                let from = g * CONTACT_CHUNK + offsets[g * width + bucket] as usize;
                &local[from..from + counts[g * width + bucket] as usize]
            })
        };
        let bucket_bound = |k: usize| starts[k] as usize;
        let rows_bound = move |k: usize| if by_count { k * rows } else { 0 };
        workers.for_each_part(
            (
                Cut::new(&mut buf.sorted, bucket_bound),
                Cut::new(&mut sort.row_counts, rows_bound),
            ),
            width,
            |bucket, (out, next)| {
                let ((out, _), (next, _)) = (out.get(), next.get());
                if by_count {
                    next.fill(0);
                    for c in runs(bucket).flatten() {
                        next[c.key as usize] += 1;
                    }
                    let mut at = 0;
                    for n in next.iter_mut() {
                        (*n, at) = (at, at + *n);
                    }
                    for c in runs(bucket).flatten() {
                        let at = &mut next[c.key as usize];
                        out[*at as usize] = Contact { key: 0, ..*c };
                        *at += 1;
                    }
                } else {
                    let mut at = 0;
                    for run in runs(bucket) {
                        out[at..at + run.len()].copy_from_slice(run);
                        at += run.len();
                    }
                    out.sort_unstable_by_key(|c| (c.key, c.a, c.b));
                    for c in out.iter_mut() {
                        c.key = 0;
                    }
                }
            },
        );
    }
}

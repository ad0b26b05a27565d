//! The brute-force loops the checks compare the tree's answers with: slow by design, obviously
//! right.

/// Calls `f(i, j)` for every pair of indices `i < j` below `n`, in order of `i` then `j`:
/// the one n² pair loop of the tests (the caller tests each pair with the predicate it
/// trusts).
///
/// ```
/// let mut pairs = Vec::new();
/// quadstress_testkit::brute::each_pair(3, |i, j| pairs.push((i, j)));
/// assert_eq!(pairs, [(0, 1), (0, 2), (1, 2)]);
/// ```
pub fn each_pair(n: usize, mut f: impl FnMut(usize, usize)) {
    for i in 0..n {
        for j in i + 1..n {
            f(i, j);
        }
    }
}

/// The pairs `(i, j)`, `i < j`, of the `items` for which `keep` holds, in order of `i` then `j`.
pub fn pairs_where<T>(items: &[T], mut keep: impl FnMut(&T, &T) -> bool) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    each_pair(items.len(), |i, j| {
        if keep(&items[i], &items[j]) {
            out.push((i, j));
        }
    });
    out
}

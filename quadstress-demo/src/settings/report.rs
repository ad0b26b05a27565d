//! The report lines the demo prints, `name: value unit` (a headless run's timings and state,
//! a scripted window's summary), read back by name: for the demo's tests and for scripts.

/// The value on the first line of `text` that starts with `name: `, without its unit.
pub fn value<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    text.lines().find_map(|line| {
        line.strip_prefix(name)?
            .strip_prefix(": ")?
            .split_whitespace()
            .next()
    })
}

/// [`value`] as a number; `None` when the line is missing or its value is not a number.
pub fn number(text: &str, name: &str) -> Option<f64> {
    value(text, name)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_read_by_its_whole_name() {
        let text = "step.median: 1.5 ms\nstep: 3 steps\nstate_hash: 00ff\nbroadphase: tree";
        assert_eq!(value(text, "step"), Some("3"));
        assert_eq!(number(text, "step.median"), Some(1.5));
        assert_eq!(value(text, "state_hash"), Some("00ff"));
        assert_eq!(number(text, "broadphase"), None);
        assert_eq!(value(text, "step.p99"), None);
        assert_eq!(value(text, "state"), None);
    }
}

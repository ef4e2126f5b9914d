//! "Did you mean": the closest of the valid words to a mistyped one.

/// The candidate closest to `typed` by edit distance, when it is close enough to be a typo (at
/// most a third of the longer word's characters differ, and at least one matches).
pub fn closest<'c>(typed: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    candidates
        .into_iter()
        .map(|c| (distance(typed, c), c))
        .filter(|&(d, c)| d > 0 && d * 3 <= typed.chars().count().max(c.chars().count()))
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

/// ` (did you mean 'X'?)` for the closest candidate, or nothing.
pub fn hint<'c>(typed: &str, candidates: impl IntoIterator<Item = &'c str>) -> String {
    closest(typed, candidates).map_or_else(String::new, |c| format!(" (did you mean '{c}'?)"))
}

/// The Levenshtein distance between `a` and `b`, in characters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1).min(row[j] + 1).min(diagonal + usize::from(ca != cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::{closest, distance};

    #[test]
    fn typos_find_their_word_and_strangers_nothing() {
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(closest("inpsect", ["verify", "inspect", "dump"]), Some("inspect"));
        assert_eq!(closest("--tensor", ["--json", "--tensors"]), Some("--tensors"));
        assert_eq!(closest("frobnicate", ["verify", "inspect", "dump"]), None);
        assert_eq!(closest("dump", ["dump"]), None, "an exact match is no typo");
    }
}

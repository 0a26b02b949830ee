//! How specific a word is: how few software projects' documents use it.
//!
//! In a store of a few memories the store's own word statistics say nothing (every word is
//! rare in five memories), yet a task that shares "use", "test" or "add" with a memory
//! shares little, and one that shares "migration" or "sqlite" shares what it is about. The
//! background is the document frequency of each word stem over the READMEs of packages on
//! PyPI and npm (`data/background.tsv`, made by `scripts/background-words`): one document
//! per package, so a word counts once for each project that uses it.

use std::sync::LazyLock;

/// The table: `#documents<TAB>N`, then `stem<TAB>documents` for the stems at least
/// [`LISTED_FROM`] documents hold, most frequent first.
const TABLE: &str = include_str!("../data/background.tsv");

/// The fewest documents a stem of the table is held by; a stem not listed counts as held by
/// half as many (fewer, but not none: the list leaves the rarest out to stay small).
const LISTED_FROM: f64 = 3.0;

struct Background {
    documents: f64,
    frequency: foldhash::HashMap<&'static str, u32>,
}

static BACKGROUND: LazyLock<Background> = LazyLock::new(|| {
    let mut lines = TABLE.lines();
    let documents = lines
        .next()
        .and_then(|l| l.strip_prefix("#documents\t"))
        .and_then(|n| n.parse::<f64>().ok())
        .expect("data/background.tsv starts with #documents<TAB>N");
    let frequency = lines
        .filter_map(|l| {
            let (stem, n) = l.split_once('\t')?;
            Some((stem, n.parse().ok()?))
        })
        .collect();
    Background {
        documents,
        frequency,
    }
});

/// How specific the word stem `stem` (lowercase, stemmed by [`Stemmer`](crate::Stemmer)) is:
/// `ln((N + 1) / (n + 0.5))` for a stem `n` of the background's `N` documents hold. A stem
/// the background does not list counts as held by half the fewest it lists.
///
/// ```
/// use oro_mem_text::specificity;
///
/// // Most projects' documents say "use"; few say "migrat" (migration, migrations).
/// assert!(specificity("use") < 0.5);
/// assert!(specificity("migrat") > 2.0 * specificity("test"));
/// assert_eq!(specificity("zzzqqx"), specificity("zzzqqy"));
/// ```
pub fn specificity(stem: &str) -> f64 {
    let b = &*BACKGROUND;
    let held = b
        .frequency
        .get(stem)
        .map_or(LISTED_FROM / 2.0, |&n| f64::from(n));
    ((b.documents + 1.0) / (held + 0.5)).ln()
}

/// The specificity of a term no word stem stands for (a run of CJK text): that of a stem the
/// background does not list.
pub(crate) fn unlisted() -> f64 {
    let b = &*BACKGROUND;
    ((b.documents + 1.0) / (LISTED_FROM / 2.0 + 0.5)).ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_read_whole_and_ordered() {
        let b = &*BACKGROUND;
        assert!(b.documents >= 500.0);
        assert!(b.frequency.len() > 1000);
        let counts: Vec<u32> = TABLE
            .lines()
            .skip(1)
            .map(|l| l.split_once('\t').unwrap().1.parse().unwrap())
            .collect();
        assert_eq!(counts.len(), b.frequency.len(), "a stem listed twice");
        assert!(counts.windows(2).all(|w| w[0] >= w[1]));
        assert!(counts.iter().all(|&n| f64::from(n) >= LISTED_FROM));
    }

    #[test]
    fn specificity_falls_as_more_documents_hold_a_stem() {
        let mut listed: Vec<(&str, u32)> =
            BACKGROUND.frequency.iter().map(|(&s, &n)| (s, n)).collect();
        listed.sort_by_key(|&(s, n)| (n, s));
        for w in listed.windows(2) {
            assert!(specificity(w[0].0) >= specificity(w[1].0));
        }
        assert!(unlisted() >= specificity(listed[0].0));
        assert!(specificity(listed.last().unwrap().0) >= 0.0);
    }
}

//! How specific a word is: how few software projects' documents use it.
//!
//! In a store of a few memories the store's own word statistics say nothing (every word is
//! rare in five memories), yet a task that shares "use", "test" or "add" with a memory
//! shares little, and one that shares "migration" or "sqlite" shares what it is about. The
//! background is the document frequency of each word stem over the READMEs of packages on
//! PyPI and npm (`data/background.tsv`, made by `scripts/background-words`): one document
//! per package, so a word counts once for each project that uses it.

// `DOCUMENTS` and `STEMS`, from `data/background.tsv` (see `build.rs`).
include!(concat!(env!("OUT_DIR"), "/background.rs"));

/// The fewest documents a stem of the table is held by (`scripts/background-words` leaves
/// rarer ones out to keep it small); a stem not listed counts as held by half as many.
const LISTED_FROM: f64 = 3.0;

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
    let held = STEMS
        .binary_search_by(|(s, _)| (*s).cmp(stem))
        .map_or(LISTED_FROM / 2.0, |i| f64::from(STEMS[i].1));
    of_held(held)
}

/// The specificity of a term no word stem stands for (a run of CJK text): that of a stem the
/// background does not list.
pub(crate) fn unlisted() -> f64 {
    of_held(LISTED_FROM / 2.0)
}

fn of_held(held: f64) -> f64 {
    ((f64::from(DOCUMENTS) + 1.0) / (held + 0.5)).ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_and_holds_what_the_script_keeps() {
        const { assert!(DOCUMENTS >= 500) };
        assert!(STEMS.len() > 1000);
        assert!(STEMS.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(STEMS.iter().all(|&(_, n)| f64::from(n) >= LISTED_FROM));
        assert!(STEMS.iter().all(|&(_, n)| n <= DOCUMENTS));
        // Every listed stem is found.
        for &(stem, n) in &STEMS {
            assert_eq!(specificity(stem), of_held(f64::from(n)));
        }
    }

    #[test]
    fn specificity_falls_as_more_documents_hold_a_stem() {
        let mut listed = STEMS.to_vec();
        listed.sort_by_key(|&(s, n)| (n, s));
        for w in listed.windows(2) {
            assert!(specificity(w[0].0) >= specificity(w[1].0));
        }
        assert!(unlisted() >= specificity(listed[0].0));
        assert!(specificity(listed.last().unwrap().0) >= 0.0);
        assert_eq!(specificity(""), unlisted());
    }
}
